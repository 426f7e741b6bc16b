package main

import (
	"fmt"
	"io"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/runner"
	"corepin.dev/corepin/suite"
	"corepin.dev/corepin/workloads"
)

func newRunCmd() *command {
	var (
		tf                    targetFlags
		sf                    schedFlags
		quick, shuffle, quiet bool
		runs, warmup          int
		isolation, out        string
		only                  listValue
		telemetryP, watchP    time.Duration
		waitOnline            time.Duration
	)
	cmd := &command{
		use:   "run [SUITE.toml]",
		short: "Run benchmarks on the chosen core, with scheduling evidence, telemetry and statistics",
		long: `Run benchmarks on the chosen core and keep, for every run, what was computed,
how long it took, and what scheduling was asked for and read back, beside
per-CPU telemetry and the output check.

Without a suite file, the built-in suite runs: Fibonacci, a compression
round trip, a lattice-Boltzmann stencil, a graph kernel, a game-tree search,
JSON and SHA-256, each checking its own answer. The score is 1000 times the
geometric mean of reference time / measured median.

Results go to DIR/<timestamp>-<host>/ (run.json, summary.csv, bench.txt for
benchstat, telemetry/*.csv); the last line printed is that folder. Ctrl-C
stops the current run, keeps what finished and marks the run interrupted.`,
		example: `  corepin run --quick
  corepin run --runs 10 --shuffle
  corepin run spec.toml --cpu 7 --ladder spec --realtime
  corepin run --isolation thread --only fib,lbm`,
		args: func(args []string) error {
			if len(args) > 1 {
				return usageError{fmt.Errorf("at most one suite file")}
			}
			return nil
		},
	}
	cmd.run = func(in *invocation, args []string) error {
		var s *suite.Suite
		if len(args) == 1 {
			var err error
			if s, err = suite.Load(args[0]); err != nil {
				return usageError{err}
			}
		}
		topo, target, err := tf.resolve("/")
		if err != nil {
			return err
		}
		ladder, level, mode, err := sf.build(in)
		if err != nil {
			return err
		}
		if !in.changed("warmup") {
			warmup = -1
		}
		if runs < 0 || (warmup < -1) {
			return usageError{fmt.Errorf("--runs and --warmup must not be negative")}
		}
		if isolation != runner.Process && isolation != runner.Thread {
			return usageError{fmt.Errorf("--isolation %q: want process or thread", isolation)}
		}
		var events runner.Events
		switch {
		case quiet:
		case isTerminal(in.stderr):
			events = &barEvents{w: in.stderr}
		default:
			events = &lineEvents{w: in.stderr}
		}
		run, folder, err := runner.Run(in.ctx, runner.Config{
			Suite: s, Quick: quick, Only: only, Runs: runs, Warmup: warmup, Isolation: isolation, Shuffle: shuffle,
			TelemetryPeriod: telemetryP, WatchPeriod: watchP, WaitOnline: waitOnline,
			Topology: topo, Target: target, Mode: mode, Ladder: ladder, AllowRealtime: sf.realtime, QoS: level, Accept: sf.accept,
			OutDir: out, Version: buildVersion().Version, Events: events,
		})
		if err != nil {
			if folder != nil {
				fmt.Fprintln(in.stderr, "results so far:", folder.Path)
			}
			return err
		}
		w := in.stdout
		if !quiet {
			printRunSummary(w, run)
		}
		if err := writeReport(folder.Path, run); err != nil {
			fmt.Fprintln(in.stderr, "corepin: writing the HTML report:", err)
		}
		fmt.Fprintln(w, folder.Path)
		switch {
		case run.Interrupted:
			return &exitError{code: 130, err: fmt.Errorf("interrupted; finished runs are in %s", folder.Path)}
		case run.StoppedEarly != "":
			return &exitError{code: launch.ExitNoLongerHeld, err: fmt.Errorf("%s; finished runs are in %s", run.StoppedEarly, folder.Path)}
		case !allValid(run):
			return &exitError{code: exitFailure, err: fmt.Errorf("some benchmarks are invalid (see the warnings)")}
		}
		return nil
	}
	f := cmd.flags()
	tf.register(cmd)
	sf.register(cmd)
	f.BoolVar(&quick, "quick", false, "built-in suite at small sizes (under a minute in all)")
	f.IntVar(&runs, "runs", 0, "counted runs per benchmark (default 6, the fewest for a 95% interval, or the suite's)")
	f.IntVar(&warmup, "warmup", 1, "warm-up runs per benchmark, not counted")
	f.StringVar(&isolation, "isolation", runner.Process, "process (a child started on target, as corepin exec does) or thread (a session thread; built-ins only)")
	f.DurationVar(&telemetryP, "telemetry", 0, "telemetry period (default 100ms for built-ins, 1s for suite files)")
	f.DurationVar(&watchP, "watch", 100*time.Millisecond, "watcher period; 0 turns it off")
	f.DurationVar(&waitOnline, "wait-online", 0, "when the target CPU is offline before a run, wait this long for it to come back (default: stop early at once, exit 124)")
	f.StringVar(&out, "out", "corepin-results", "results go under this `folder`")
	f.BoolVar(&shuffle, "shuffle", false, "interleave the benchmarks' runs in random order")
	f.BoolVar(&quiet, "quiet", false, "print only the results folder")
	cmd.alias("q", "quiet")
	f.Var(&only, "only", "run only these benchmarks (comma-separated `names`)")
	var names []string
	for _, w := range workloads.All() {
		names = append(names, w.Name)
	}
	cmd.complete("only", names...)
	cmd.complete("isolation", runner.Process, runner.Thread)
	return cmd
}

func allValid(r *results.Run) bool {
	for _, b := range r.Benchmarks {
		if !b.Valid {
			return false
		}
	}
	return true
}

func printRunSummary(w io.Writer, r *results.Run) {
	fmt.Fprintf(w, "%s on CPU %d (%s): %s\n\n", r.Host.CPUModel, r.Target.ExactCPU, r.Target.Mode, r.Target.Why)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BENCHMARK\tMEDIAN\t95% CI\tCV\tRATIO\tCHECK\tWARNINGS")
	for _, b := range r.Benchmarks {
		ratio, check := "-", "ok"
		if b.Ratio != nil {
			ratio = fmt.Sprintf("%.3f", *b.Ratio)
		}
		if !b.Valid {
			check = "INVALID"
		}
		interval := "-"
		if b.CIConf > 0 {
			interval = fmtSeconds(b.CILowS) + "–" + fmtSeconds(b.CIHighS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f%%\t%s\t%s\t%d\n", b.Name, fmtSeconds(b.MedianS), interval, 100*b.CV, ratio, check, len(b.Warnings))
	}
	tw.Flush()
	if r.Score != nil {
		fmt.Fprintf(w, "\nscore %.0f\n", *r.Score)
	}
	printGroupedWarnings(w, r)
}

func fmtSeconds(s float64) string { return results.FormatSeconds(s) }

// lineEvents prints one plain line per run, for logs and pipes.
type lineEvents struct {
	w     io.Writer
	total int
	done  int
	start time.Time
}

func (e *lineEvents) Start(total int)                   { e.total, e.start = total, time.Now() }
func (e *lineEvents) RunStarted(string, int, int, bool) {}
func (e *lineEvents) RunDone(bench string, rec *results.RunRecord) {
	e.done++
	state := fmtSeconds(rec.WallS)
	switch {
	case rec.Error != "":
		state = "error: " + rec.Error
	case !rec.Valid:
		state += " INVALID"
	}
	kind := "run"
	if rec.Warmup {
		kind = "warm-up"
	}
	fmt.Fprintf(e.w, "[%d/%d] %s %s %d: %s\n", e.done, e.total, bench, kind, rec.Index, state)
}
func (e *lineEvents) Finish() {}

// Note prints a passing note, such as a wait for an offline CPU.
func (e *lineEvents) Note(s string) { fmt.Fprintln(e.w, "corepin: "+s) }

// barEvents draws a progress bar with the benchmark, run and ETA.
type barEvents struct {
	w    io.Writer
	p    *mpb.Progress
	bar  *mpb.Bar
	what atomic.Value // the run in progress, shown left of the bar
}

func (e *barEvents) Start(total int) {
	e.what.Store("starting")
	e.p = mpb.New(mpb.WithOutput(e.w), mpb.WithWidth(30))
	e.bar = e.p.AddBar(int64(total), mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return e.what.Load().(string) }, decor.WCSyncSpaceR)),
		mpb.AppendDecorators(decor.CountersNoUnit("%d/%d"), decor.Name(" · ETA "), decor.AverageETA(decor.ET_STYLE_GO)))
}
func (e *barEvents) RunStarted(bench string, run, of int, warmup bool) {
	kind := "run"
	if warmup {
		kind = "warm-up"
	}
	e.what.Store(fmt.Sprintf("%-9s %s %d/%d", bench, kind, run+1, of))
}
func (e *barEvents) RunDone(string, *results.RunRecord) { e.bar.Increment() }

// Finish takes the bar away, also when the run stopped early.
func (e *barEvents) Finish() {
	e.bar.Abort(true)
	e.p.Wait()
}

// printGroupedWarnings prints each warning once, with the benchmarks it
// concerns.
func printGroupedWarnings(w io.Writer, r *results.Run) {
	for _, warn := range r.GroupedWarnings() {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}
