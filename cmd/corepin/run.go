package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/guard"
	"corepin.dev/corepin/cmd/corepin/internal/runner"
	"corepin.dev/corepin/cmd/corepin/internal/workloads"
	"corepin.dev/corepin/internal/buildinfo"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/interrupt"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
)

// runFlags are corepin run's flags.
type runFlags struct {
	tf                    targetFlags
	sf                    schedFlags
	shf                   sharingFlags
	tune                  tuneFlags
	realtimeFirst         bool
	launcher              bool
	speedGate             bool
	quick, shuffle, quiet bool
	runs, warmup          int
	isolation, out        string
	only                  cli.ListValue
	telemetryP, watchP    time.Duration
	waitOnline            time.Duration
	// guard ends what the run started and puts the machine back should
	// corepin be killed.
	guard *guard.Guard
}

func newRunCmd(g *guard.Guard) *cli.Command {
	f := runFlags{guard: g, tune: tuneFlags{guard: g}}
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
		cfg, err := f.config(in, cmd, args)
		if err != nil {
			return err
		}
		run, folder, err := runner.Run(in.Ctx, cfg)
		if err != nil {
			return f.failed(in, err, folder)
		}
		return f.done(in, cfg, run, folder)
	}
	f.register(cmd)
	return cmd
}

// register adds the flags to cmd.
func (f *runFlags) register(cmd *cli.Command) {
	fl := cmd.Flags()
	f.tf.register(cmd)
	f.sf.register(cmd)
	f.shf.register(cmd)
	fl.BoolVar(&f.realtimeFirst, "realtime-first", false, "keep the ladder's realtime steps first for runs longer than a second (by default nice -20 comes first there: the realtime throttle holds FIFO back)")
	f.tune.register(cmd, true)
	fl.BoolVar(&f.quick, "quick", false, "built-in suite at small sizes (under a minute in all)")
	fl.IntVar(&f.runs, "runs", 0, fmt.Sprintf("counted runs per benchmark (default 6, the fewest for a 95%% interval, or the suite's); at most %d runs and warm-ups in all", runner.MaxTotalRuns))
	fl.IntVar(&f.warmup, "warmup", 1, "warm-up runs per benchmark, not counted")
	fl.StringVar(&f.isolation, "isolation", runner.Process, "process (a child started on target, as corepin exec does) or thread (a session thread; built-ins only)")
	fl.DurationVar(&f.telemetryP, "telemetry", 0, "telemetry period (default 100ms for built-ins, 1s for suite files)")
	fl.DurationVar(&f.watchP, "watch", 100*time.Millisecond, "watcher period; 0 turns it off")
	fl.DurationVar(&f.waitOnline, "wait-online", 0, "when the target CPU is offline before a run, wait this long for it to come back (default: stop early at once, exit 124)")
	fl.StringVar(&f.out, "out", "corepin-results", "results go under this `folder`")
	cmd.Output("out", cli.Results)
	fl.BoolVar(&f.shuffle, "shuffle", false, "interleave the benchmarks' runs in random order")
	fl.BoolVar(&f.speedGate, "speed-gate", false, fmt.Sprintf("leave out of the statistics a run called slowed (below %.0f%% of its benchmark's best run's speed, outside its spread, by a cause measured during it), keep it in run.json with its reason and run it again (at most %d times)", 100*(1-judge.SpeedWarn), judge.MaxSpeedReruns))
	fl.BoolVar(&f.launcher, "launcher", false, "start each run through corepin re-executed as a launcher, whose own thread is read back and becomes the command (as --qos does)")
	fl.BoolVar(&f.quiet, "quiet", false, "print only the results folder")
	cmd.Alias("q", "quiet")
	fl.Var(&f.only, "only", "run only these benchmarks (comma-separated `names`)")
	var names []string
	for _, w := range workloads.All() {
		names = append(names, w.Name)
	}
	cmd.Complete("only", names...)
	cmd.Complete("isolation", runner.Process, runner.Thread)
}

// config is the run the command line asks for, checked before anything
// is changed (the counts and periods, the names of --only, and a number
// of runs one run can record); then the target, the request and the tune
// are made of it.
func (f *runFlags) config(in *cli.Invocation, cmd *cli.Command, args []string) (runner.Config, error) {
	if !in.Changed("warmup") {
		f.warmup = -1
	}
	cfg := runner.Config{
		Quick: f.quick, Only: f.only, Runs: f.runs, Warmup: f.warmup, Isolation: f.isolation, Shuffle: f.shuffle,
		TelemetryPeriod: f.telemetryP, WatchPeriod: f.watchP, WaitOnline: f.waitOnline,
		RealtimeFirst: f.realtimeFirst, Launcher: f.launcher, AllowSharing: f.shf.allow, SpeedGate: f.speedGate, Flags: judgeFlags(cmd),
		OutDir: f.out, Version: buildinfo.Read().Version, Events: runner.Progress(in.Stderr, f.quiet, isTerminal(in.Stderr)),
	}
	if len(args) == 1 {
		var err error
		if cfg.Suite, err = suite.Load(args[0]); err != nil {
			return cfg, suiteError(err)
		}
		if f.isolation == runner.Thread {
			return cfg, fmt.Errorf("--isolation thread runs built-in workloads only; suite commands are processes")
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, runUsageError(err)
	}
	var err error
	if cfg.Topology, cfg.Target, err = f.tf.resolve("/"); err != nil {
		return cfg, err
	}
	if cfg.Request, err = f.sf.requestFor(in, &f.tf, cfg.Target); err != nil {
		return cfg, err
	}
	if cfg.MaxOthers, err = f.shf.share(); err != nil {
		return cfg, err
	}
	f.guard.Results(cfg.Request.Mask(), f.out) // where a guard says what it did, should corepin be killed
	cfg.Guard = f.guard
	cfg.Tune = f.tune.forRun(in, cfg.Request.Mask(), "corepin run")
	return cfg, nil
}

// failed is the exit of a run that could not be run or finished: a tune
// interrupted before anything ran, an --out that cannot take a results
// folder, or what stopped it, with where its results so far are.
func (f *runFlags) failed(in *cli.Invocation, err error, folder *results.Folder) error {
	if te := (*runner.TuneError)(nil); errors.As(err, &te) && in.Ctx.Err() != nil {
		return interrupted(in.Ctx, "nothing was run: "+te.Err.Error())
	}
	if folder == nil {
		return placeError(err) // --out cannot take a results folder: nothing ran
	}
	fmt.Fprintln(in.Stderr, "results so far:", folder.Path)
	return err
}

// done says what the run found, writes its page and trace, and exits as
// it ended: interrupted, stopped early, with invalid benchmarks, or well.
func (f *runFlags) done(in *cli.Invocation, cfg runner.Config, run *results.Run, folder *results.Folder) error {
	w := in.Stdout
	if !f.quiet {
		run.WriteSummary(w, judge.Words{Flags: cfg.Flags}.Phrases())
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
	case !run.AllValid() && !f.quiet:
		return &exitError{code: exitFailure, err: fmt.Errorf("some benchmarks are invalid (see above)")}
	case !run.AllValid():
		// -q printed no summary: the reasons for the exit are still said.
		return &exitError{code: exitFailure, err: errors.New(strings.Join(runner.WhyInvalid(run), "\ncorepin: "))}
	}
	return nil
}

// runUsageError is a run that cannot be run as the command line asks, in
// its flags' words: exit 2.
func runUsageError(err error) error {
	var unknown *runner.UnknownNamesError
	var many *runner.TooManyRunsError
	switch {
	case errors.As(err, &unknown):
		err = fmt.Errorf("--only: %w", err)
	case errors.As(err, &many):
		err = fmt.Errorf("%d benchmark(s), up to %d runs and %d warm-up(s) each: %d runs in all; one corepin run records at most %d (ask for fewer runs, or run the suite in parts with --only)",
			many.Benchmarks, many.Runs, many.Warmups, many.Total, runner.MaxTotalRuns)
	}
	return usageError{Err: err}
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
