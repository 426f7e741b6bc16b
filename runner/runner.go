// Package runner runs a suite of benchmarks on the chosen core: every run
// is started on target by the launch package (or runs on a session
// thread), with the watcher and the telemetry sampler around it, and every
// result is kept with its evidence in a results folder that is on disk
// after each run.
package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/oncpu"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/suite"
	"corepin.dev/corepin/system"
	"corepin.dev/corepin/telemetry"
	"corepin.dev/corepin/topology"
	"corepin.dev/corepin/watch"
	"corepin.dev/corepin/workloads"
)

// Isolation says how a run is separated from corepin itself.
const (
	Process = "process" // a child process started on target by launch.Run (the default)
	Thread  = "thread"  // a session thread inside corepin (built-ins only)
)

// Config is a run of benchmarks.
type Config struct {
	Suite     *suite.Suite // nil runs the built-in suite
	Quick     bool         // built-in suite at quick sizes
	Only      []string     // run only these benchmarks
	Runs      int          // counted runs per benchmark; 0 picks the default
	Warmup    int          // warm-up runs; -1 picks the default
	Isolation string
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
	// before a run is warned (DefaultMaxOthers when 0); AllowSharing
	// keeps a run above InvalidOthers valid, with a warning.
	MaxOthers    float64
	AllowSharing bool
	// RealtimeFirst keeps the ladder's order for runs longer than
	// LongRun, whose realtime steps otherwise come after nice -20.
	RealtimeFirst bool
	// Launcher starts each process run through the re-executed launcher
	// (launch.Config.Launcher), as a QoS level always does.
	Launcher bool

	// Root is the folder holding proc/ and sys/ for the host facts and
	// corepin's own threads; the live system by default.
	Root    fsroot.Root
	OutDir  string // the results folders go under it
	Self    string // the corepin executable (launcher and workloads)
	Version string // corepin's version, for the record
	Events  Events
	// Tuned is the machine's tune for this run, if the caller made one;
	// the run records it beside the machine's condition.
	Tuned *system.Tuned
	// Guard, when set, ends each process run's tree should this process
	// be killed (launch.Config.Guard).
	Guard launch.Guard
	// onCPU traces who runs on the target for the whole run, where BPF is
	// allowed: each run's snapshots name the others that took its time.
	onCPU *oncpu.Tracer

	// SpeedProbe is how long the speed witness's probe lasts at full
	// speed (speed.DefaultDuration when 0).
	SpeedProbe time.Duration
	// SpeedGate leaves out of the statistics each counted run called
	// slowed (its own time more than results.SpeedWarn below its
	// benchmark's best run and outside the steady band, with what was
	// measured during it saying by what), keeps it in run.json with its
	// reason, and runs it again, at most MaxSpeedReruns times. A run whose target CPU was shared is run
	// again also without --speed-gate (see rerunner).
	SpeedGate bool

	witness *witness
	// startFacts is the machine's condition before the first run, which
	// the warnings at the end judge.
	startFacts *system.Facts
}

// Events are told how the run goes; a progress display implements them.
type Events interface {
	Start(total int)
	RunStarted(bench string, run, of int, warmup bool)
	RunDone(bench string, rec *results.RunRecord)
	Finish()
}

type noEvents struct{}

func (noEvents) Start(int)                          {}
func (noEvents) RunStarted(string, int, int, bool)  {}
func (noEvents) RunDone(string, *results.RunRecord) {}
func (noEvents) Finish()                            {}

// job is one run of one benchmark.
type job struct {
	bench, index int
	warmup       bool
	rerun        int // how many times it was run again, for any reason
	sharedReruns int // how many of those because its target was shared
}

// name names the run as the progress lines and run.json do: its index,
// warm-ups first ("run 4 of lbm", "warm-up 0 of fib").
func (j job) name(bench string) string {
	kind := "run"
	if j.warmup {
		kind = "warm-up"
	}
	return fmt.Sprintf("%s %d of %s", kind, j.index, bench)
}

// file names the run's files in the results folder: a re-run's own, so
// that the dropped run's evidence stays.
func (j job) file(bench string) string {
	if j.rerun > 0 {
		return fmt.Sprintf("%s-%d-rerun%d", bench, j.index, j.rerun)
	}
	return fmt.Sprintf("%s-%d", bench, j.index)
}

// bench is a benchmark to run: a built-in workload or a suite command.
type bench struct {
	name     string
	workload *workloads.Workload
	command  *suite.Benchmark
	runs     int
	expectS  float64 // how long its next run is expected to last
	// checker applies a suite command's checks and reads its metric;
	// version is its program's version line (versionErr why there is
	// none, where the benchmark asks for one).
	checker    *suite.Checker
	version    string
	versionErr error
}

// MaxRuns bounds the runs and the warm-ups of one benchmark: far beyond,
// a count is a typo that would only cost time.
const MaxRuns = suite.MaxRuns

// MaxTotalRuns bounds the runs and warm-ups of all benchmarks together,
// and the speed gate's re-runs with them: every run adds its record (at
// most results.MaxRecordBytes) to run.json and the journal, which stay
// readable within results.MaxRunFile.
const MaxTotalRuns = suite.MaxTotalRuns

// TooManyRunsError is a run whose benchmarks, runs and warm-ups add up to
// more than MaxTotalRuns.
type TooManyRunsError struct {
	Benchmarks, Runs, Warmups int // Runs of the benchmark with the most
	Total                     int
}

func (e *TooManyRunsError) Error() string {
	return fmt.Sprintf("%d benchmark(s), up to %d runs and %d warm-up(s) each: %d runs in all; one corepin run records at most %d (ask for fewer runs, or run the suite in parts with --only)",
		e.Benchmarks, e.Runs, e.Warmups, e.Total, MaxTotalRuns)
}

// ValidatePlan checks, before anything is started, what the run would
// run: the benchmarks --only names exist (an UnknownNamesError) and
// their runs and warm-ups stay within MaxTotalRuns (a TooManyRunsError).
func (cfg *Config) ValidatePlan() error {
	benches, err := cfg.benchmarks()
	if err != nil {
		return err
	}
	return cfg.checkTotal(benches)
}

func (cfg *Config) checkTotal(benches []bench) error {
	e := &TooManyRunsError{Benchmarks: len(benches), Warmups: cfg.warmups()}
	for _, b := range benches {
		e.Total += cfg.runs(b) + e.Warmups
		e.Runs = max(e.Runs, cfg.runs(b))
	}
	if e.Total > MaxTotalRuns {
		return e
	}
	return nil
}

// Validate checks the counts and periods of a run, before anything is
// read or started: each error names the setting.
func (cfg *Config) Validate() error {
	switch {
	case cfg.Runs < 0 || cfg.Runs > MaxRuns:
		return fmt.Errorf("runs %d: want 1 to %d (or 0 for the default)", cfg.Runs, MaxRuns)
	case cfg.Warmup < -1 || cfg.Warmup > MaxRuns:
		return fmt.Errorf("warmup %d: want 0 to %d", cfg.Warmup, MaxRuns)
	case cfg.TelemetryPeriod < 0 || (cfg.TelemetryPeriod > 0 && cfg.TelemetryPeriod < telemetry.MinPeriod):
		return fmt.Errorf("telemetry period %v: want at least %v (or 0 for the default)", cfg.TelemetryPeriod, telemetry.MinPeriod)
	case cfg.WatchPeriod < 0 || (cfg.WatchPeriod > 0 && cfg.WatchPeriod < watch.MinPeriod):
		return fmt.Errorf("watch period %v: want at least %v (or 0 to turn the watcher off)", cfg.WatchPeriod, watch.MinPeriod)
	case cfg.Isolation != "" && cfg.Isolation != Process && cfg.Isolation != Thread:
		return fmt.Errorf("unknown isolation %q (want process or thread)", cfg.Isolation)
	}
	return nil
}

// Run runs the benchmarks and returns the results and their folder. The
// folder is created first, so that an unwritable place fails before any
// benchmark runs. A cancelled context stops the current run, keeps what
// is finished and marks the run interrupted.
func Run(ctx context.Context, cfg Config) (*results.Run, *results.Folder, error) {
	if cfg.Events == nil {
		cfg.Events = noEvents{}
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if cfg.Isolation == "" {
		cfg.Isolation = Process
	}
	if err := cfg.Request.Validate(); err != nil {
		return nil, nil, err
	}
	if cfg.Suite != nil && cfg.Isolation == Thread {
		return nil, nil, fmt.Errorf("--isolation thread runs built-in workloads only; suite commands are processes")
	}
	if cfg.Self == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, nil, err
		}
		cfg.Self = self
	}
	benches, err := cfg.benchmarks()
	if err != nil {
		return nil, nil, err
	}
	if err := cfg.checkTotal(benches); err != nil {
		return nil, nil, err
	}
	var skipped []suite.Skip
	if cfg.Suite != nil {
		if skipped, err = cfg.Suite.LookCommands(); err != nil {
			return nil, nil, err
		}
		if benches, err = withoutSkipped(benches, skipped); err != nil {
			return nil, nil, err
		}
	}
	cfg.witness = cfg.calibrateWitness()
	defer cfg.witness.stop()
	host := hostFacts(cfg)
	folder, err := results.Create(cfg.OutDir, host.Name(), time.Now())
	if err != nil {
		return nil, nil, err
	}
	work, err := cfg.prepareSuite(ctx, folder, benches)
	if err != nil {
		os.RemoveAll(folder.Path) // nothing ran: leave no folder
		return nil, nil, err
	}
	defer os.RemoveAll(work)
	run := cfg.skeleton(host, benches)
	run.Topology = topologyEvidence(cfg.Topology)
	for _, sk := range skipped {
		run.Skipped = append(run.Skipped, results.Skip{Name: sk.Name, Why: sk.Why})
	}
	cfg.systemStart(run)
	// run.json says from the start what is planned and that it is not
	// finished; the runs themselves go to the journal as they complete.
	if err := folder.SaveRun(run); err != nil {
		os.RemoveAll(folder.Path) // nothing happened: leave no empty folder
		return nil, nil, err
	}
	journal, err := folder.OpenJournal()
	if err != nil {
		os.RemoveAll(folder.Path)
		return nil, nil, err
	}
	defer journal.Close()
	// One tracer for the whole run: loading it costs tens of
	// milliseconds, a snapshot around each run well under one. Where
	// corepin may not trace (unprivileged, no BTF), runs have no names.
	if tr, err := oncpu.Start(cfg.Request.Mask()); err == nil {
		cfg.onCPU = tr
		defer tr.Stop()
	}
	jobs := cfg.jobs(benches)
	// Disk for the last save of run.json, should the disk fill up
	// meanwhile: the finished runs then still reach it.
	folder.Reserve(results.ReserveFor(len(jobs)))
	// Re-runs are recorded too: they may add what the planned runs leave
	// of MaxTotalRuns.
	re := &rerunner{speedGate: cfg.SpeedGate, left: MaxTotalRuns - len(jobs)}
	cfg.Events.Start(len(jobs))
	var failed error
	var offline []string // what the target's going offline did to the run
	longest := make(longestRun, len(benches))
	noted := false // what the first run that started could not have
	for _, j := range jobs {
		if ctx.Err() != nil {
			run.Interrupted = true
			break
		}
		b := benches[j.bench]
		b.expectS = expectedSeconds(b, longest[j.bench])
		warning, stop := cfg.awaitTarget(ctx, j.name(b.name))
		if warning != "" {
			offline = append(offline, warning)
		}
		if stop {
			run.StoppedEarly = warning
			break
		}
		rb := &run.Benchmarks[j.bench]
		of := rb.PlannedRuns
		if j.warmup {
			of = rb.PlannedWarmups
		}
		cfg.Events.RunStarted(b.name, j.index, of, j.warmup)
		rec := cfg.runOnce(ctx, folder, b, j)
		if !noted && rec.Scheduling != nil && rec.Scheduling.Child.Started {
			noted = true
			cfg.noteFirst(rec.Scheduling)
		}
		for ctx.Err() == nil {
			why := re.reason(&rec, rb.SpeedReference(), &j)
			if why == "" {
				break
			}
			rec.Dropped = why
			if err := journal.Append(b.name, &rec); err != nil {
				failed = err
				run.StoppedEarly = notRecorded(err)
				break
			}
			rb.DroppedRuns = append(rb.DroppedRuns, rec)
			j.rerun++
			if n, ok := cfg.Events.(Noter); ok {
				n.Note(fmt.Sprintf("%s run %d: %s", termsafe.Text(b.name), j.index, termsafe.Text(why))) // names of others' threads are anyone's
			}
			cfg.Events.RunStarted(b.name, j.index, of, j.warmup)
			rec = cfg.runOnce(ctx, folder, b, j)
		}
		if failed != nil {
			break
		}
		if ctx.Err() != nil && (rec.Error != "" || !rec.Valid) {
			// The run was cut short by a signal: it is not a result.
			run.Interrupted = true
			break
		}
		if err := journal.Append(b.name, &rec); err != nil {
			failed = err // not recorded, so not a result either
			run.StoppedEarly = notRecorded(err)
			break
		}
		rb.Runs = append(rb.Runs, rec)
		longest.add(j.bench, &rec)
		cfg.Events.RunDone(b.name, &rec)
	}
	cfg.Events.Finish()
	finish(run)
	run.Warnings = append(run.Warnings, offline...)
	run.Warnings = append(run.Warnings, versionWarnings(benches)...)
	for _, sk := range run.Skipped {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%s was skipped: %s", sk.Name, sk.Why))
	}
	cfg.systemEnd(run)
	if err := folder.Save(run); err != nil {
		// Even without its reserve the folder's disk cannot take run.json:
		// what finished is kept elsewhere, in a folder that says so.
		if kept, kerr := folder.KeepElsewhere(run, err); kerr == nil {
			return run, kept, fmt.Errorf("%w; the finished runs are kept in %s", err, kept.Path)
		}
		return run, folder, err
	}
	return run, folder, failed
}

// notRecorded says why a run stopped when a finished run could not be
// recorded (a full disk): it is not a result, and the runs before it are.
func notRecorded(err error) string {
	return fmt.Sprintf("a finished run could not be recorded (%v), so the run stopped; the runs recorded before it are kept", err)
}

// finish summarises and scores what completed, and closes the run.
func finish(run *results.Run) {
	now := time.Now()
	run.Finished = &now
	run.State = results.StateFinished
	if run.Interrupted {
		run.State = results.StateInterrupted
	}
	run.Writer = nil
	run.Warnings = []string{}
	run.Settle()
	if run.StoppedEarly != "" {
		run.Score = nil // a score of some of the runs describes no machine
	}
	if why := noScore(run); why != "" {
		run.Warnings = append(run.Warnings, "no score: "+why)
	}
}

// noScore says why a run that could have had a score has none, "" when it
// has one or none was to be had: a suite whose benchmarks have no
// reference time is scored by nothing, and saying so on every run of it
// would be noise.
func noScore(run *results.Run) string {
	if run.Score != nil {
		return ""
	}
	var unreferenced, invalid []string
	for _, b := range run.Benchmarks {
		switch {
		case b.ReferenceS <= 0:
			unreferenced = append(unreferenced, b.Name)
		case !b.Valid:
			invalid = append(invalid, b.Name)
		}
	}
	var why []string
	switch {
	case len(unreferenced) == len(run.Benchmarks):
		return "" // no reference time at all: no score was to be had
	case len(unreferenced) > 0:
		why = append(why, fmt.Sprintf("%s %s no reference time", termsafe.Text(strings.Join(unreferenced, ", ")), hasHave(len(unreferenced))))
	}
	if len(invalid) > 0 {
		why = append(why, termsafe.Text(strings.Join(invalid, ", "))+" invalid or unfinished")
	}
	if run.StoppedEarly != "" {
		why = append(why, "the run stopped early")
	}
	if len(why) == 0 {
		return "a benchmark is invalid, unfinished or has no reference time"
	}
	return strings.Join(why, "; ")
}

func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

func (cfg *Config) benchmarks() ([]bench, error) {
	var out []bench
	want, missing := map[string]bool{}, map[string]bool{}
	for _, n := range cfg.Only {
		want[n], missing[n] = true, true
	}
	if cfg.Suite == nil {
		for _, w := range workloads.All() {
			if len(want) == 0 || want[w.Name] {
				w := w
				out = append(out, bench{name: w.Name, workload: &w})
				delete(missing, w.Name)
			}
		}
	} else {
		for i := range cfg.Suite.Benchmarks {
			b := &cfg.Suite.Benchmarks[i]
			if len(want) == 0 || want[b.Name] {
				out = append(out, bench{name: b.Name, command: b, runs: b.Runs})
				delete(missing, b.Name)
			}
		}
	}
	if len(missing) > 0 {
		err := &UnknownNamesError{}
		for n := range missing {
			err.Names = append(err.Names, n)
		}
		slices.Sort(err.Names)
		if cfg.Suite == nil {
			for _, w := range workloads.All() {
				err.Known = append(err.Known, w.Name)
			}
		} else {
			for _, b := range cfg.Suite.Benchmarks {
				err.Known = append(err.Known, b.Name)
			}
		}
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no benchmark to run")
	}
	return out, nil
}

func (cfg *Config) runs(b bench) int {
	switch {
	case b.runs > 0:
		return b.runs
	case cfg.Runs > 0:
		return cfg.Runs
	case cfg.Suite != nil && cfg.Suite.Settings.Runs > 0:
		return cfg.Suite.Settings.Runs
	}
	return 6 // the fewest runs for a 95% confidence interval of the median
}

func (cfg *Config) warmups() int {
	switch {
	case cfg.Warmup >= 0:
		return cfg.Warmup
	case cfg.Suite != nil && cfg.Suite.Settings.Warmup != nil:
		return *cfg.Suite.Settings.Warmup
	}
	return 1
}

func (cfg *Config) telemetryPeriod() time.Duration {
	switch {
	case cfg.TelemetryPeriod > 0:
		return cfg.TelemetryPeriod
	case cfg.Suite != nil:
		return time.Second
	}
	return 100 * time.Millisecond
}

// jobs lists every run: warm-ups first, then the counted runs. With
// Shuffle the rounds are interleaved across benchmarks in random order, so
// that thermal drift spreads over all of them instead of favouring the
// first.
func (cfg *Config) jobs(benches []bench) []job {
	var per [][]job
	for bi, b := range benches {
		var js []job
		for i := range cfg.warmups() + cfg.runs(b) {
			js = append(js, job{bench: bi, index: i, warmup: i < cfg.warmups()})
		}
		per = append(per, js)
	}
	var out []job
	if !cfg.Shuffle {
		for _, js := range per {
			out = append(out, js...)
		}
		return out
	}
	for round := 0; ; round++ {
		var r []job
		for _, js := range per {
			if round < len(js) {
				r = append(r, js[round])
			}
		}
		if len(r) == 0 {
			return out
		}
		rand.Shuffle(len(r), func(i, k int) { r[i], r[k] = r[k], r[i] })
		out = append(out, r...)
	}
}

func (cfg *Config) size() workloads.Size {
	if cfg.Quick {
		return workloads.Quick
	}
	return workloads.Full
}

func (cfg *Config) skeleton(host results.Host, benches []bench) *results.Run {
	run := &results.Run{
		Schema: results.Schema, Started: time.Now(), Host: host,
		Target: results.Target{Spec: cfg.Target.Spec, Mode: evidence.Mode(cfg.Request.ModeOrDefault()), ExactCPU: cfg.Request.CPU,
			SoftCPUs: cfg.Request.Group, Node: cfg.Target.Node, Why: cfg.Target.Why},
		// The runs recorded are those used: the command line's, else the
		// suite's, else the default (a benchmark's own runs are in its
		// record).
		Options: results.Options{Quick: cfg.Quick, Runs: cfg.runs(bench{}), Warmup: cfg.warmups(), Isolation: cfg.Isolation,
			Shuffle: cfg.Shuffle, TelemetryPeriod: cfg.telemetryPeriod().Seconds(), Ladder: cfg.Request.Ladder.Name(),
			Realtime: cfg.Request.AllowRealtime, MaxOthers: cfg.maxOthers(), AllowSharing: cfg.AllowSharing,
			RealtimeFirst: cfg.RealtimeFirst, Launcher: cfg.Launcher, SpeedGate: cfg.SpeedGate},
		Benchmarks: []results.Benchmark{}, Warnings: []string{},
		State: results.StateRunning, Writer: results.ThisWriter(),
	}
	if cfg.Suite != nil {
		run.Options.Suite, run.Options.SuiteSHA256 = cfg.Suite.Path, cfg.Suite.SHA256
	}
	if cfg.SpeedGate {
		run.Options.SpeedGateReruns = MaxSpeedReruns
	}
	if cfg.witness != nil {
		run.Speed = cfg.witness.record()
	}
	for _, b := range benches {
		rb := results.Benchmark{Name: b.name, Warnings: []results.Warning{}}
		if w := b.workload; w != nil {
			rb.Kind, rb.Description, rb.ReferenceS = "builtin", w.Description, w.Reference[cfg.size()]
		} else {
			rb.Kind, rb.ReferenceS = "command", b.command.ReferenceSeconds
			rb.Command = append([]string{b.command.Cmd}, b.command.Args...)
			rb.Description, rb.Version, rb.Measure = b.command.Description, b.version, measureOf(b.command.Metric)
		}
		rb.PlannedRuns, rb.PlannedWarmups = cfg.runs(b), cfg.warmups()
		if cfg.witness.ok() {
			rb.SpeedBestRate = cfg.witness.probe.Rate
		}
		rb.Runs = []results.RunRecord{}
		run.Benchmarks = append(run.Benchmarks, rb)
	}
	return run
}

func hostFacts(cfg Config) results.Host {
	h := results.Host{GoVersion: runtime.Version(), Corepin: cfg.Version}
	h.Hostname, _ = os.Hostname()
	if device := os.Getenv(results.DeviceEnv); device != "" { // started by corepin --on
		h.AddDevice(device)
	}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		h.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	if cfg.Topology != nil {
		h.CPUModel = cfg.Topology.Model
	}
	read := func(name string) string {
		data, err := cfg.Root.ReadFile(fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpufreq/%s", cfg.Request.CPU, name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(data))
	}
	h.Governor, h.Driver = read("scaling_governor"), read("scaling_driver")
	return h
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
	return fmt.Sprintf("--only: %s %s (there are: %s)", noun, strings.Join(quoted, ", "), strings.Join(e.Known, ", "))
}
