package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"corepin.dev/corepin/internal/buildinfo"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/guard"
	"corepin.dev/corepin/internal/interrupt"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/runner"
	"corepin.dev/corepin/suite"
	"corepin.dev/corepin/workloads"
)

func newRunCmd(g *guard.Guard) *cli.Command {
	var (
		tf                    targetFlags
		sf                    schedFlags
		shf                   sharingFlags
		realtimeFirst         bool
		launcher              bool
		speedGate             bool
		quick, shuffle, quiet bool
		runs, warmup          int
		isolation, out        string
		only                  cli.ListValue
		telemetryP, watchP    time.Duration
		tune                  = tuneFlags{guard: g}
		waitOnline            time.Duration
	)
	cmd := &cli.Command{
		Use:    "run [SUITE.toml]",
		Device: cli.OnDevice,
		Short:  "Run benchmarks on the chosen core, with scheduling evidence, telemetry and statistics",
		Long: `Run benchmarks on the chosen core and keep, for every run, what was computed,
how long it took, and what scheduling was asked for and read back, beside
per-CPU telemetry and the output check.

Without a suite file, the built-in suite runs: Fibonacci, a compression
round trip, a lattice-Boltzmann stencil, a graph kernel, a game-tree search,
JSON and SHA-256, each checking its own answer. The score is 1000 times the
geometric mean of reference time / measured median.

Results go to DIR/<timestamp>-<host>/ (run.json, summary.csv, bench.txt for
benchstat, telemetry/*.csv); the last line printed is that folder. Ctrl-C
stops the current run, keeps what finished and marks the run interrupted.`,
		Example: `  corepin run --quick
  corepin run --runs 10 --shuffle
  corepin run spec.toml --cpu 7 --ladder spec --realtime
  corepin run --isolation thread --only fib,lbm`,
		Args: func(args []string) error {
			if len(args) > 1 {
				return usageError{Err: fmt.Errorf("at most one suite file")}
			}
			return nil
		},
	}
	cmd.Run = func(in *cli.Invocation, args []string) error {
		if !in.Changed("warmup") {
			warmup = -1
		}
		bounds := runner.Config{Runs: runs, Warmup: warmup, TelemetryPeriod: telemetryP, WatchPeriod: watchP, Isolation: isolation}
		if err := bounds.Validate(); err != nil {
			return usageError{Err: err}
		}
		var s *suite.Suite
		if len(args) == 1 {
			var err error
			if s, err = suite.Load(args[0]); err != nil {
				return suiteError(err)
			}
		}
		// What would run is checked before anything is changed: the names
		// of --only, and a number of runs one run can record.
		bounds.Suite, bounds.Only = s, only
		if err := bounds.ValidatePlan(); err != nil {
			return usageError{Err: err}
		}
		topo, target, err := tf.resolve("/")
		if err != nil {
			return err
		}
		req, err := sf.requestFor(in, &tf, target)
		if err != nil {
			return err
		}
		maxOthers, err := shf.share()
		if err != nil {
			return err
		}
		events := runner.Progress(in.Stderr, quiet, isTerminal(in.Stderr))
		g.Results(req.Mask(), out) // where a guard says what it did, should corepin be killed
		tuned, err := tune.start(in, req.Mask(), "corepin run")
		if err != nil {
			return err
		}
		var run *results.Run
		var folder *results.Folder
		defer func() {
			// Put the machine back on every way out, and record how.
			tune.finish(in, tuned)
			if tuned != nil && run != nil && folder != nil && runner.RecordTune(run, tuned) == nil {
				folder.Save(run)
			}
		}()
		run, folder, err = runner.Run(in.Ctx, runner.Config{
			Suite: s, Quick: quick, Only: only, Runs: runs, Warmup: warmup, Isolation: isolation, Shuffle: shuffle,
			TelemetryPeriod: telemetryP, WatchPeriod: watchP, WaitOnline: waitOnline,
			Topology: topo, Target: target, Request: req,
			MaxOthers: maxOthers, AllowSharing: shf.allow, RealtimeFirst: realtimeFirst, Launcher: launcher,
			SpeedGate: speedGate,
			OutDir:    out, Version: buildinfo.Read().Version, Events: events, Tuned: tuned, Guard: g,
		})
		if err != nil {
			if folder != nil {
				fmt.Fprintln(in.Stderr, "results so far:", folder.Path)
			} else {
				err = placeError(err) // --out cannot take a results folder: nothing ran
			}
			if unknown := (*runner.UnknownNamesError)(nil); errors.As(err, &unknown) {
				return usageError{Err: err}
			}
			return err
		}
		w := in.Stdout
		if !quiet {
			run.WriteSummary(w)
		}
		if err := writePage(folder.Path, run); err != nil {
			fmt.Fprintln(in.Stderr, "corepin: writing the HTML report:", err)
		}
		if err := writeTrace(folder.Path, run); err != nil {
			fmt.Fprintln(in.Stderr, "corepin: writing the trace:", err)
		}
		fmt.Fprintln(w, folder.Path)
		switch {
		case run.Interrupted:
			return &exitError{code: interrupt.Code(in.Ctx), err: fmt.Errorf("interrupted; finished runs are in %s", folder.Path)}
		case run.StoppedEarly != "":
			return &exitError{code: launch.ExitNoLongerHeld, err: fmt.Errorf("%s; finished runs are in %s", run.StoppedEarly, folder.Path)}
		case !run.AllValid():
			if !quiet {
				return &exitError{code: exitFailure, err: fmt.Errorf("some benchmarks are invalid (see above)")}
			}
			// -q printed no summary: the reasons for the exit are still said.
			return &exitError{code: exitFailure, err: errors.New(strings.Join(runner.WhyInvalid(run), "\ncorepin: "))}
		}
		return nil
	}
	f := cmd.Flags()
	tf.register(cmd)
	sf.register(cmd)
	shf.register(cmd)
	f.BoolVar(&realtimeFirst, "realtime-first", false, "keep the ladder's realtime steps first for runs longer than a second (by default nice -20 comes first there: the realtime throttle holds FIFO back)")
	tune.register(cmd, true)
	f.BoolVar(&quick, "quick", false, "built-in suite at small sizes (under a minute in all)")
	f.IntVar(&runs, "runs", 0, fmt.Sprintf("counted runs per benchmark (default 6, the fewest for a 95%% interval, or the suite's); at most %d runs and warm-ups in all", runner.MaxTotalRuns))
	f.IntVar(&warmup, "warmup", 1, "warm-up runs per benchmark, not counted")
	f.StringVar(&isolation, "isolation", runner.Process, "process (a child started on target, as corepin exec does) or thread (a session thread; built-ins only)")
	f.DurationVar(&telemetryP, "telemetry", 0, "telemetry period (default 100ms for built-ins, 1s for suite files)")
	f.DurationVar(&watchP, "watch", 100*time.Millisecond, "watcher period; 0 turns it off")
	f.DurationVar(&waitOnline, "wait-online", 0, "when the target CPU is offline before a run, wait this long for it to come back (default: stop early at once, exit 124)")
	f.StringVar(&out, "out", "corepin-results", "results go under this `folder`")
	cmd.Output("out", cli.Results)
	f.BoolVar(&shuffle, "shuffle", false, "interleave the benchmarks' runs in random order")
	f.BoolVar(&speedGate, "speed-gate", false, fmt.Sprintf("leave out of the statistics a run called slowed (below %.0f%% of its benchmark's best run's speed, outside its spread, by a cause measured during it), keep it in run.json with its reason and run it again (at most %d times)", 100*(1-results.SpeedWarn), runner.MaxSpeedReruns))
	f.BoolVar(&launcher, "launcher", false, "start each run through corepin re-executed as a launcher, whose own thread is read back and becomes the command (as --qos does)")
	f.BoolVar(&quiet, "quiet", false, "print only the results folder")
	cmd.Alias("q", "quiet")
	f.Var(&only, "only", "run only these benchmarks (comma-separated `names`)")
	var names []string
	for _, w := range workloads.All() {
		names = append(names, w.Name)
	}
	cmd.Complete("only", names...)
	cmd.Complete("isolation", runner.Process, runner.Thread)
	return cmd
}

// suiteError is the exit of a suite that cannot be used: 2 when the file
// named on the command line cannot be read, 1 when its content is wrong
// (as for a command it names that does not exist).
func suiteError(err error) error {
	var se *suite.Error
	if errors.As(err, &se) {
		return &exitError{code: exitFailure, err: err}
	}
	return usageError{Err: err}
}
