// Package results is corepin's one result model: a run of benchmarks with
// everything needed to explain it later — host, topology, target, and for
// every run its time, output check, scheduling report, watcher statistics
// and telemetry. run.json, summary.csv, bench.txt (Go benchmark format,
// for benchstat) and the HTML report are views of it.
package results

import (
	"encoding/json"
	"math"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results/evidence"
)

// Schema names the version of run.json. Keys are only ever added within a
// version.
const Schema = "corepin.run/v1"

// Run is one invocation of corepin run: the content of run.json.
type Run struct {
	Schema      string     `json:"schema"`
	Started     time.Time  `json:"started"`
	Finished    *time.Time `json:"finished"`
	Interrupted bool       `json:"interrupted"`
	// State is running, finished, interrupted or crashed (see StateRunning).
	// Only a finished run has every planned run; the others hold the runs
	// that completed, and nothing in place of the rest.
	State string `json:"state"`
	// Writer is the process that writes the run, so that a later reader
	// can tell a run in progress from one whose writer died.
	Writer *Writer `json:"writer,omitempty"`
	// StoppedEarly says why the run ended before its last benchmark run
	// without being interrupted: its target went offline.
	StoppedEarly string             `json:"stopped_early,omitempty"`
	Host         Host               `json:"host"`
	Topology     *evidence.Topology `json:"topology"`
	Target       Target             `json:"target"`
	Options      Options            `json:"options"`
	Benchmarks   []Benchmark        `json:"benchmarks"`
	// Skipped are the suite's benchmarks that did not run because a
	// program they need is not installed, each with what provides it.
	Skipped []Skip `json:"skipped,omitempty"`
	// Score is 1000 × the geometric mean of the ratios; null unless every
	// benchmark has a reference time and passed its checks.
	Score *float64 `json:"score"`
	// Warnings are the run's own, about it as a whole (Run NoRun): each of
	// a kind, as its benchmarks' are; an older corepin wrote them as
	// strings, which read as warnings without a kind.
	Warnings []Warning `json:"warnings"`
	// Source is the file another tool wrote that an imported run was
	// read from (corepin import); nil for corepin's own runs.
	Source *Source `json:"source,omitempty"`
	// Spec is an imported SPEC CPU result's own figures (Source.Tool
	// "spec").
	Spec *SpecRun `json:"spec,omitempty"`
	// System is the machine's condition for measuring at the start and
	// the end of the run, and what was tuned for it.
	System *evidence.RunFacts `json:"system,omitempty"`
	// Speed is the witness of the target's speed: the probe calibrated
	// for the session, or why there is none.
	Speed *SpeedWitness `json:"speed,omitempty"`
}

// Skip is a benchmark of the suite that was not run, and why: "zstd is
// not installed (Debian package zstd)".
type Skip struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// SpeedWitness is the session's speed probe: a loop of fixed work,
// calibrated once on the target to last about ProbeS, read Reads times on
// the target after every run (the best of them is the reading). A reading
// is of the core after the run, not of the run: the run's own speed is
// its time against its benchmark's best run (RunRecord.Speed), and a run
// is called slowed only where what was measured during it says by what
// (RunRecord.SlowedBy).
type SpeedWitness struct {
	Iterations int     `json:"iterations"`
	ProbeS     float64 `json:"probe_s"`
	// Reads is how many probes are read after each run; 0 in a run.json
	// of an older corepin, which read one before and one after.
	Reads int `json:"reads,omitempty"`
	// CalibrationRate is the best rate of the calibration, in steps per
	// second: every benchmark's best starts from it.
	CalibrationRate float64 `json:"calibration_rate"`
	// Threshold is how far below its benchmark's best run a run's own
	// speed must be before it can be called slowed (and, with the gate,
	// re-run); SteadyBand how far above the benchmark's median its time
	// must be (nearer, it is the benchmark's own spread).
	Threshold  float64 `json:"threshold"`
	SteadyBand float64 `json:"steady_band,omitempty"`
	// Unavailable says why there is no probe ("" when there is).
	Unavailable string `json:"unavailable,omitempty"`
}

// Host is the machine and software the run used.
type Host struct {
	Hostname  string `json:"hostname"`
	Kernel    string `json:"kernel"`
	CPUModel  string `json:"cpu_model"`
	Governor  string `json:"governor"` // of the target CPU; "" where there is no cpufreq
	Driver    string `json:"cpufreq_driver"`
	GoVersion string `json:"go_version"`
	Corepin   string `json:"corepin_version"`
	// On, Serial, Model and OS say which device the run was on when it
	// was started from another machine (corepin --on): the target it was
	// reached through (ssh://…, adb:SERIAL, hdc:KEY), the device's serial
	// number, model and system release, as the device told that machine
	// (see DeviceEnv). "" for a run started here.
	On     string `json:"on,omitempty"`
	Serial string `json:"serial,omitempty"`
	Model  string `json:"model,omitempty"`
	OS     string `json:"os,omitempty"`
}

// Target is where the benchmarks ran. An imported run, which corepin did
// not watch, has ExactCPU -1 and nothing else: where it ran is not
// recorded (Run.Where).
type Target struct {
	Spec     string        `json:"spec"`
	Mode     evidence.Mode `json:"mode"`
	ExactCPU int           `json:"exact_cpu"`
	SoftCPUs cpuset.Set    `json:"soft_cpus"`
	Node     *int          `json:"node,omitempty"` // the NUMA node of every soft CPU
	Why      string        `json:"why"`
}

// CPUs is the mask the work was kept on, as the request computed it: the
// soft group in soft mode, else the exact CPU.
func (t Target) CPUs() cpuset.Set {
	switch {
	case t.Mode == evidence.Soft && !t.SoftCPUs.IsEmpty():
		return t.SoftCPUs
	case t.ExactCPU < 0 || t.ExactCPU > cpuset.MaxCPU:
		return cpuset.Set{} // not recorded (-1: an imported run), or no CPU at all
	}
	return cpuset.Of(t.ExactCPU)
}

// Options are the run's settings.
type Options struct {
	Suite string `json:"suite,omitempty"` // "" for the built-in suite
	App   string `json:"app,omitempty"`   // the app whose native module wrote the run
	// SuiteSHA256 is the suite's identity: the SHA-256 of the suite file
	// as it was read, which holds every benchmark's definition. Two runs
	// whose hashes differ ran different suites, whatever their names.
	SuiteSHA256     string  `json:"suite_sha256,omitempty"`
	Quick           bool    `json:"quick"`
	Runs            int     `json:"runs"`
	Warmup          int     `json:"warmup"`
	Isolation       string  `json:"isolation"` // process or thread
	Shuffle         bool    `json:"shuffle"`
	TelemetryPeriod float64 `json:"telemetry_period_s"`
	Ladder          string  `json:"ladder"`
	Realtime        bool    `json:"realtime"`
	// MaxOthers is the share of the target's time others could take
	// before a run was warned (MaxWait, the work's own wait, is what
	// corepin judged by before); AllowSharing kept shared runs valid;
	// RealtimeFirst kept realtime steps first in long runs; Launcher
	// started each process run through the re-executed launcher.
	MaxOthers     float64 `json:"max_others,omitempty"`
	MaxWait       float64 `json:"max_wait,omitempty"`
	AllowSharing  bool    `json:"allow_sharing,omitempty"`
	RealtimeFirst bool    `json:"realtime_first,omitempty"`
	Launcher      bool    `json:"launcher,omitempty"`
	// SpeedGate left out of the statistics the runs whose speed witness
	// read below the threshold, and re-ran each at most SpeedGateReruns
	// times.
	SpeedGate       bool `json:"speed_gate,omitempty"`
	SpeedGateReruns int  `json:"speed_gate_reruns,omitempty"`
}

// Benchmark is one benchmark's runs and statistics.
type Benchmark struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Kind        string   `json:"kind"` // builtin, command, or native (written by the native library); an import's own
	Command     []string `json:"command,omitempty"`
	// Version is the benchmarked program's version, as the suite's
	// version command printed it ("" when the suite asks for none).
	Version    string  `json:"version,omitempty"`
	ReferenceS float64 `json:"reference_s,omitempty"`
	// Measure is what the benchmark is judged by when it is not its wall
	// time (a number its output prints, a score), with the statistics of
	// its runs' values; nil for wall time. Stats stay the wall time's in
	// both cases; Figures gives the one the benchmark is judged by.
	Measure *Measured `json:"measure,omitempty"`
	// Valid: every counted run finished and passed its output checks.
	Valid bool `json:"valid"`
	// PlannedRuns and PlannedWarmups are what the run set out to do;
	// CompletedRuns and CompletedWarmups what Runs holds.
	PlannedRuns      int `json:"planned_runs"`
	PlannedWarmups   int `json:"planned_warmups"`
	CompletedRuns    int `json:"completed_runs"`
	CompletedWarmups int `json:"completed_warmups"`
	Stats
	Ratio    *float64    `json:"ratio"` // reference / median
	Warnings []Warning   `json:"warnings"`
	Runs     []RunRecord `json:"runs"`
	// SpeedBestRate is the best rate the speed probe reached for this
	// benchmark in the session (the calibration's included): the speed
	// 1.0 of its runs.
	SpeedBestRate float64 `json:"speed_best_rate,omitempty"`
	// DroppedRuns are the runs left out and run again, each with its
	// reason (Dropped): runs whose target CPU was shared, and runs
	// --speed-gate saw slowed; they are in no statistic.
	DroppedRuns []RunRecord `json:"dropped_runs,omitempty"`
}

// Stats summarise the counted runs' times. With no counted run (N is 0)
// there is no time: run.json then holds null for each of them.
type Stats struct {
	N       int     `json:"n"`
	MedianS float64 `json:"median_s"`
	// CILowS and CIHighS bound the median at 95% confidence (benchmath,
	// assuming nothing about the distribution); equal to the median when
	// there are too few runs for an interval.
	CILowS  float64 `json:"ci_low_s"`
	CIHighS float64 `json:"ci_high_s"`
	CIConf  float64 `json:"ci_confidence"`
	MinS    float64 `json:"min_s"`
	MaxS    float64 `json:"max_s"`
	CV      float64 `json:"cv"` // standard deviation / mean
	// Outliers are the counted runs (indexes into Runs) more than
	// OutlierFloor off the median whose modified
	// z-score (|x - median| / (1.4826 MAD)) exceeds 3.5. They are
	// reported, not removed.
	Outliers []int `json:"outliers"`
	// Included are the runs (indexes into Runs) the statistics are of:
	// the counted runs that finished, without warm-ups; runs dropped by
	// --speed-gate are not in Runs at all.
	Included []int `json:"included"`
}

// RunRecord is one run of one benchmark.
type RunRecord struct {
	Index  int  `json:"index"`  // order within the benchmark, warm-ups first
	Warmup bool `json:"warmup"` // not counted in the statistics
	// WallS is the benchmark's time: the workload's own timing for
	// built-ins, the command's wall time for external commands. NaN
	// where no time was measured (a score imported alone), which run.json
	// writes as null.
	WallS float64 `json:"wall_s"`
	// Value is the run's value in the benchmark's measure, when it has
	// one of its own (Benchmark.Measure): read from the run's output or
	// from the file another tool wrote. Null otherwise.
	Value *float64 `json:"value,omitempty"`
	// UserS and SysS are NaN, MaxRSSKB -1, where not measured: null in
	// run.json.
	UserS    float64            `json:"user_s"`
	SysS     float64            `json:"sys_s"`
	MaxRSSKB int64              `json:"max_rss_kb"`
	Valid    bool               `json:"valid"`
	Summary  string             `json:"summary,omitempty"` // what a built-in computed
	Checks   []evidence.Outcome `json:"checks"`
	Error    string             `json:"error,omitempty"`
	// Warnings are the run's own: a target it had to share, a residency
	// that covers too little of its work.
	Warnings []Warning `json:"warnings,omitempty"`
	// OthersS is the CPU time that went to anything but the work on the
	// target during the run, OthersShare that time as a share of the
	// target (wall time × CPUs), and OthersSource how it is known:
	// "cpuacct" or "proc_stat" for the target's busy time, with
	// "(estimated)" where the work's own part of it is an estimate.
	// Null where the target's busy time could not be read.
	OthersS      *float64 `json:"others_s,omitempty"`
	OthersShare  *float64 `json:"others_share,omitempty"`
	OthersSource string   `json:"others_source,omitempty"`
	// Sharing is the verdict on the target (see the runner's Judge):
	// "not shared", "shared (warned)", "shared (invalid)", "shared
	// (allowed)", "too short to judge sharing" or "unknown".
	Sharing string `json:"sharing,omitempty"`
	// SharingNote says why sharing could not be judged: a window too short
	// for /proc/stat's ticks, or work that mostly slept.
	SharingNote string `json:"sharing_note,omitempty"`
	// WaitCause says whom the work's wait for its CPU was behind: "own
	// threads" when nothing else ran on the target, else "unknown".
	WaitCause string `json:"wait_cause,omitempty"`
	// Speed is the run's own speed: its benchmark's best run's time over
	// its own (1 for the best run). SlowedBy says, for a counted run
	// called slowed, by what: set only where its own speed is below
	// 1 - SpeedWarn, its time more than SteadyBand above the benchmark's
	// median, and what was measured during it (others' time on the
	// target, steal, a CPU bandwidth limit, the work's own CPU time with
	// a probe that agrees) accounts for at least half of the time it
	// lost against the best run.
	Speed    *float64 `json:"speed,omitempty"`
	SlowedBy string   `json:"slowed_by,omitempty"`
	// SpeedAfter is the speed probe's reading after the run, as a
	// fraction of the benchmark's best probe (SpeedBestRate): a reading
	// of the core then, not the run's speed. ProbeAfter is the reading
	// itself and SpeedSource says where it ran. SpeedBefore and
	// ProbeBefore are an older corepin's probe just before the run.
	SpeedBefore *float64    `json:"speed_before,omitempty"`
	SpeedAfter  *float64    `json:"speed_after,omitempty"`
	SpeedSource string      `json:"speed_source,omitempty"`
	ProbeBefore *SpeedProbe `json:"probe_before,omitempty"`
	ProbeAfter  *SpeedProbe `json:"probe_after,omitempty"`
	// StealS is the time the hypervisor took from the target CPUs during
	// the run (/proc/stat's steal, in 10 ms ticks); null where it could
	// not be read.
	StealS *float64 `json:"steal_s,omitempty"`
	// ThrottledS is how long CFS bandwidth control held back the cpu
	// cgroup the work ran under during the run (the most of any level,
	// from cpu.stat, over all its CPUs), and ThrottledCgroup which
	// cgroup that was; null where there is no cpu controller to read.
	ThrottledS      *float64 `json:"throttled_s,omitempty"`
	ThrottledCgroup string   `json:"throttled_cgroup,omitempty"`
	// Dropped says why this run was left out and run again (its target
	// CPU was shared, or --speed-gate saw it slowed); only the
	// benchmark's DroppedRuns have it.
	Dropped string `json:"dropped,omitempty"`
	// Scheduling is the report of the thread that did the work: the launch
	// report for a process, the session's for a thread.
	Scheduling   *evidence.Scheduling `json:"scheduling"`
	TelemetryCSV string               `json:"telemetry_csv"` // relative to the results folder
	Telemetry    TelemetryStats       `json:"telemetry"`
	StdoutFile   string               `json:"stdout_file,omitempty"`
	StderrFile   string               `json:"stderr_file,omitempty"`
	// Source is the file another tool wrote during the run that its value
	// was read from (a Geekbench export), kept in the results folder.
	Source  *Source   `json:"source,omitempty"`
	Started time.Time `json:"started"`
	// Spec is the SPEC iteration an imported run is (Run.Spec).
	Spec *SpecIteration `json:"spec,omitempty"`
}

// SpeedProbe is one reading of the speed witness.
type SpeedProbe struct {
	// At is when the probe began, on the wall clock as the run's
	// Started; zero in an older run.json.
	At    time.Time `json:"at,omitzero"`
	Rate  float64   `json:"rate"` // steps per second of wall time
	WallS float64   `json:"wall_s"`
	// OnCPU is the probe thread's CPU time over its wall time: near 1
	// when the probe ran all along, so that a low rate is the core's own
	// speed; lower when it waited for the CPU.
	OnCPU *float64 `json:"on_cpu,omitempty"`
	CPU   int      `json:"cpu"` // where it ended; -1 unknown
}

// The frequency sources of TelemetryStats.FreqSource that say nothing of
// the core's speed: a rough /proc/cpuinfo "cpu MHz" (in a VM often the
// host's nominal clock), or no frequency at all. They are the sampler's
// names (telemetry.SourceProcCpuinfo, telemetry.SourceNone).
const (
	FreqSourceCpuinfo = "proc_cpuinfo"
	FreqSourceNone    = "none"
)

// TelemetryStats summarise a run's samples of the target CPUs.
type TelemetryStats struct {
	// Started is the instant of the CSV's t_s 0, on the wall clock as
	// the run's Started; zero in an older run.json.
	Started     time.Time `json:"started,omitzero"`
	Samples     int       `json:"samples"`
	FreqSource  string    `json:"freq_source"`
	FreqMinMHz  *float64  `json:"freq_min_mhz"`
	FreqMaxMHz  *float64  `json:"freq_max_mhz"`
	FreqMeanMHz *float64  `json:"freq_mean_mhz"`
	UtilMeanPct *float64  `json:"util_mean_pct"`   // of the target CPUs
	Notes       []string  `json:"notes,omitempty"` // the sampler's own: gaps, sharing the target
}

// MarshalJSON writes the benchmark with null times when no counted run
// completed: a benchmark that never ran has no median, not one of 0 s.
func (b Benchmark) MarshalJSON() ([]byte, error) {
	type plain Benchmark // without this method
	out := struct {
		plain
		MedianS *float64 `json:"median_s"`
		CILowS  *float64 `json:"ci_low_s"`
		CIHighS *float64 `json:"ci_high_s"`
		MinS    *float64 `json:"min_s"`
		MaxS    *float64 `json:"max_s"`
		CV      *float64 `json:"cv"`
	}{plain: plain(b)}
	if b.N > 0 {
		out.MedianS, out.CILowS, out.CIHighS = &b.MedianS, &b.CILowS, &b.CIHighS
		out.MinS, out.MaxS, out.CV = &b.MinS, &b.MaxS, &b.CV
	}
	return json.Marshal(out)
}

// MarshalJSON writes a figure that was not measured as null, never 0: a
// time that is NaN (a score imported alone has no wall time; hyperfine
// keeps no user and system time per run), a negative max_rss_kb and a
// start that is not known (an imported run's).
func (r RunRecord) MarshalJSON() ([]byte, error) {
	type plain RunRecord // without this method
	out := struct {
		plain
		WallS    *float64   `json:"wall_s"`
		UserS    *float64   `json:"user_s"`
		SysS     *float64   `json:"sys_s"`
		MaxRSSKB *int64     `json:"max_rss_kb"`
		Started  *time.Time `json:"started"`
	}{plain: plain(r)}
	for _, f := range []struct {
		v   *float64
		out **float64
	}{{&r.WallS, &out.WallS}, {&r.UserS, &out.UserS}, {&r.SysS, &out.SysS}} {
		if !math.IsNaN(*f.v) {
			*f.out = f.v
		}
	}
	if r.MaxRSSKB >= 0 {
		out.MaxRSSKB = &r.MaxRSSKB
	}
	if !r.Started.IsZero() {
		out.Started = &r.Started
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a null time as NaN and a null max_rss_kb as -1:
// not measured, not 0.
func (r *RunRecord) UnmarshalJSON(data []byte) error {
	type plain RunRecord
	in := struct {
		*plain
		WallS    *float64 `json:"wall_s"`
		UserS    *float64 `json:"user_s"`
		SysS     *float64 `json:"sys_s"`
		MaxRSSKB *int64   `json:"max_rss_kb"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	r.WallS, r.UserS, r.SysS, r.MaxRSSKB = orNaN(in.WallS), orNaN(in.UserS), orNaN(in.SysS), -1
	if in.MaxRSSKB != nil {
		r.MaxRSSKB = *in.MaxRSSKB
	}
	return nil
}

func orNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// Timed reports whether the run's wall time was measured.
func (r *RunRecord) Timed() bool { return !math.IsNaN(r.WallS) }
