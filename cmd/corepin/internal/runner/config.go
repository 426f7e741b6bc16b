// Package runner runs a suite of benchmarks on the chosen core: every run
// is started on target by the launch package (or runs on a session
// thread), with the watcher and the telemetry sampler around it, judged
// by the one judge (internal/judge), and every result is kept with its
// evidence in a results folder that is on disk after each run.
//
// A Config is the run's settings, plain data checked by Validate; Run
// makes a run of it and takes it through its steps (run.go).
package runner

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/system"
	"corepin.dev/corepin/cmd/corepin/internal/telemetry"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/internal/watch"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// Isolation says how a run is separated from corepin itself.
const (
	Process = "process" // a child process started on target by launch.Run (the default)
	Thread  = "thread"  // a session thread inside corepin (built-ins only)
)

// Config is a run of benchmarks: what runs, where and how, and what it is
// judged by.
type Config struct {
	Suite     *suite.Suite // nil runs the built-in suite
	Quick     bool         // built-in suite at quick sizes
	Only      []string     // run only these benchmarks
	Runs      int          // counted runs per benchmark; 0 picks the default
	Warmup    int          // warm-up runs; -1 picks the default
	Isolation string       // Process ("" too) or Thread
	Shuffle   bool
	// TelemetryPeriod is the sampler's period; 0 picks 100 ms for the
	// built-in suite (whose runs last about a second) and 1 s for suite
	// files (SPEC-like runs of minutes).
	TelemetryPeriod time.Duration
	WatchPeriod     time.Duration
	// WaitOnline is how long a run waits, before each benchmark run, for
	// a target that went offline to come back; 0 stops the run early at
	// once, with the reason, instead of running elsewhere.
	WaitOnline time.Duration

	Topology *topology.Topology
	// Target is the selection the request was made from (its spec and why
	// it was chosen), kept for the record.
	Target topology.Target
	// Request is where and how every run runs.
	Request session.Request
	// MaxOthers is the share of the target's time that may go to others
	// before a run is warned (judge.DefaultMaxOthers when 0);
	// AllowSharing keeps a run above judge.InvalidOthers valid, with a
	// warning.
	MaxOthers    float64
	AllowSharing bool
	// RealtimeFirst keeps the ladder's order for runs longer than
	// LongRun, whose realtime steps otherwise come after nice -20.
	RealtimeFirst bool
	// Launcher starts each process run through the re-executed launcher
	// (launch.Config.Launcher), as a QoS level always does.
	Launcher bool
	// SpeedProbe is how long the speed witness's probe lasts at full
	// speed (speed.DefaultDuration when 0).
	SpeedProbe time.Duration
	// SpeedGate leaves out of the statistics each counted run called
	// slowed (judge.JudgeSpeed), keeps it in run.json with its reason,
	// and runs it again, at most judge.MaxSpeedReruns times. A run whose
	// target CPU was shared is run again also without the gate
	// (judge.Reruns).
	SpeedGate bool
	// Flags are the names of the command's flags that the run's texts
	// may advise (judge.Flags): the runner names none itself.
	Flags judge.Flags
	// Tune is the machine's tune for the run; nil for none.
	Tune *Tune
	// Guard, when set, ends each process run's tree should this process
	// be killed (launch.Config.Guard).
	Guard launch.Guard

	// Root is the folder holding proc/ and sys/ for the host facts and
	// corepin's own threads; the live system by default.
	Root    fsroot.Root
	OutDir  string // the results folders go under it
	Self    string // the corepin executable (launcher and workloads); "" is this one
	Version string // corepin's version, for the record
	Events  Events // told how the run goes; nil tells nothing
}

// Tune is the machine's tune for a run: made as the run opens, before the
// speed witness is calibrated and the machine's condition read, put back
// as it ends, and recorded in run.json, its reset included.
type Tune struct {
	Machine *system.Machine
	Request evidence.TuneRequest
	// Who says, in the journal, what asked for it ("corepin run --tune").
	Who string
	// Say is told, a line each, what a person must know of the tune as it
	// is made and put back: what would undo it, the IRQs it could not
	// move, a reset that failed. nil tells nothing.
	Say func(string)
}

// TuneError is a tune that could not be made: nothing was run.
type TuneError struct{ Err error }

func (e *TuneError) Error() string { return "tuning the machine for the run: " + e.Err.Error() }
func (e *TuneError) Unwrap() error { return e.Err }

// MaxRuns bounds the runs and the warm-ups of one benchmark: far beyond,
// a count is a typo that would only cost time.
const MaxRuns = suite.MaxRuns

// MaxTotalRuns bounds the runs and warm-ups of all benchmarks together,
// and the re-runs with them: every run adds its record (at most
// results.MaxRecordBytes) to run.json and the journal, which stay
// readable within results.MaxRunFile.
const MaxTotalRuns = suite.MaxTotalRuns

// Validate checks the run before anything is read or started: its counts
// and periods (each error names the setting), its isolation, the
// benchmarks --only names (an UnknownNamesError) and the runs they add up
// to (a TooManyRunsError).
func (cfg Config) Validate() error {
	if err := cfg.validSettings(); err != nil {
		return err
	}
	benches, err := benchmarks(cfg)
	if err != nil {
		return err
	}
	return checkTotal(cfg, benches)
}

// validSettings checks the counts, periods and isolation.
func (cfg Config) validSettings() error {
	switch {
	case cfg.Runs < 0 || cfg.Runs > MaxRuns:
		return fmt.Errorf("runs %d: want 1 to %d (or 0 for the default)", cfg.Runs, MaxRuns)
	case cfg.Warmup < -1 || cfg.Warmup > MaxRuns:
		return fmt.Errorf("warmup %d: want 0 to %d", cfg.Warmup, MaxRuns)
	case cfg.TelemetryPeriod < 0 || (cfg.TelemetryPeriod > 0 && cfg.TelemetryPeriod < telemetry.MinPeriod):
		return fmt.Errorf("telemetry period %v: want at least %v (or 0 for the default)", cfg.TelemetryPeriod, telemetry.MinPeriod)
	case cfg.WatchPeriod < 0 || (cfg.WatchPeriod > 0 && cfg.WatchPeriod < watch.MinPeriod):
		return fmt.Errorf("watch period %v: want at least %v (or 0 to turn the watcher off)", cfg.WatchPeriod, watch.MinPeriod)
	}
	return cfg.validIsolation()
}

// validIsolation checks the isolation, and that a thread runs only
// built-ins.
func (cfg Config) validIsolation() error {
	switch {
	case cfg.Isolation != "" && cfg.Isolation != Process && cfg.Isolation != Thread:
		return fmt.Errorf("unknown isolation %q (want process or thread)", cfg.Isolation)
	case cfg.Suite != nil && cfg.Isolation == Thread:
		return fmt.Errorf("isolation thread runs built-in workloads only; suite commands are processes")
	}
	return nil
}

// TooManyRunsError is a run whose benchmarks, runs and warm-ups add up to
// more than MaxTotalRuns.
type TooManyRunsError struct {
	Benchmarks, Runs, Warmups int // Runs of the benchmark with the most
	Total                     int
}

func (e *TooManyRunsError) Error() string {
	return fmt.Sprintf("%d benchmark(s), up to %d runs and %d warm-up(s) each: %d runs in all; one corepin run records at most %d (ask for fewer runs, or run the suite in parts)",
		e.Benchmarks, e.Runs, e.Warmups, e.Total, MaxTotalRuns)
}

// UnknownNamesError is an --only that names benchmarks the suite does not
// have: a mistake on the command line, every such name said at once.
type UnknownNamesError struct {
	Names []string // sorted
	Known []string // the suite's benchmarks, in its order
}

func (e *UnknownNamesError) Error() string {
	quoted := make([]string, len(e.Names))
	for i, n := range e.Names {
		quoted[i] = strconv.Quote(n)
	}
	noun := "no benchmark named"
	if len(e.Names) > 1 {
		noun = "no benchmarks named"
	}
	return fmt.Sprintf("%s %s (there are: %s)", noun, strings.Join(quoted, ", "), strings.Join(e.Known, ", "))
}
