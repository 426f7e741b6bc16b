package judge

import (
	"time"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// The thresholds of the rules, each said once.
const (
	// DefaultMaxOthers: above this share of the target's time going to
	// others a run is warned; above InvalidOthers it is invalid, unless
	// sharing is allowed. A target is shared when its time went to
	// something outside the work: the target's busy time less the work's
	// own time there. The work's wait for its CPU is not the measure: its
	// own threads wait for each other too.
	DefaultMaxOthers = 0.02
	InvalidOthers    = 0.10
	// MinWorkCPU: a run whose work used less CPU time than this says
	// nothing by its own wait, busy threads or sampled coverage: a few
	// scheduler slices' worth. Sharing is judged by the exactness of the
	// target's account instead (see isCoarse).
	MinWorkCPU = 20 * time.Millisecond
	// WantedShare: a run whose work wanted a CPU (ran on one or waited
	// for one) for less than this share of its window mostly slept, and
	// what others took of the target while it slept cost it nothing
	// (sh -c "sleep 1" beside a busy loop). SleptShare: where the work's
	// wait is not known for all of it, only work that used a CPU for this
	// share of its window or less is taken to have slept.
	WantedShare = 0.5
	SleptShare  = 0.1
	// MinOthers: others' time below this, plus the readings' own
	// resolution, is nothing: the kernel's and corepin's own
	// microseconds on the target around the fork.
	MinOthers = time.Millisecond
	// OwnWaitWarn: a wait above this share of the work's time is said
	// (advice: its threads took turns), never a reason to invalidate.
	OwnWaitWarn = 0.02
	// CoverageWarn: below it the residency describes too little of the
	// tree's CPU time to stand for the work.
	CoverageWarn = 0.80
	// SpreadWarn: a benchmark's coefficient of variation above it is
	// said.
	SpreadWarn = 0.05
	// FirstRunWarn: a first counted run slower than the median by this
	// much is said.
	FirstRunWarn = 0.10
	// FreqWarn: a frequency range within a run, relative to its maximum,
	// above it is said.
	FreqWarn = 0.10
	// ResidencyWarn: a share of running samples on the target below it
	// is said.
	ResidencyWarn = 0.99
	// WatcherCostWarn is the share of one CPU the watcher's own thread
	// may use before a run says so: the watcher's own threshold, which
	// its KeepUp.TooExpensive records.
	WatcherCostWarn = evidence.CPUShareWarn
)

// A level is when a rule is judged: as a run's report comes in (for run,
// exec and imports alike), as a run of the suite ends, as a benchmark is
// settled (its runs one by one, then as a whole), or as a run of
// benchmarks ends.
type level int

const (
	onReport   level = iota // Report
	onRunEnd                // Record: a run of the suite
	onRecord                // Settle: each counted run, before its own findings
	onEvidence              // Settle: each counted run, after its own findings
	onBench                 // Settle: the benchmark as a whole
	onEnd                   // End: the run of benchmarks
)

// rule finds what one kind of evidence says.
type rule struct {
	kinds []string // what it finds
	level level
	find  func(*facts) []Finding
}

// rules are every rule of the judge, in the order their findings are
// said. The re-runs of shared and slowed runs (Reruns) and a target gone
// offline (Offline) are judged as the runs go, by what they count.
var rules = []rule{
	{[]string{results.KindTooShort, results.KindShared, results.KindKernelThreads}, onReport, sharing},
	{[]string{results.KindOwnWait, results.KindWait}, onReport, wait},
	{[]string{results.KindOwnThreads}, onReport, ownThreads},
	{[]string{results.KindCoverage}, onReport, coverage},
	{[]string{results.KindLeftCgroup}, onReport, leftCgroup},
	{[]string{results.KindRealtime}, onReport, realtime},
	{[]string{results.KindWatcher}, onRunEnd, vouched},

	{[]string{results.KindNotATime}, onBench, notFigures},
	{[]string{results.KindUnfinished, results.KindInvalidRuns}, onBench, unfinished},
	{[]string{results.KindSpread}, onBench, spread},
	{[]string{results.KindFirstRun}, onBench, firstRun},
	{[]string{results.KindOutliers}, onBench, outliers},
	{[]string{results.KindSpeedGate, results.KindSharedRerun}, onBench, dropped},

	{[]string{results.KindSpeed}, onRecord, slowed},
	{[]string{results.KindFrequency}, onRecord, frequency},
	{[]string{results.KindTelemetry}, onRecord, telemetryNotes},
	{[]string{results.KindWatcher, results.KindWatcherCost}, onEvidence, watcher},
	{[]string{results.KindResidency}, onEvidence, residency},
	{[]string{results.KindLadder}, onEvidence, ladder},
	{[]string{results.KindRestore}, onEvidence, restore},

	{[]string{results.KindNoScore}, onEnd, noScore},
	{[]string{results.KindOffline}, onEnd, offline},
	{[]string{results.KindVersion}, onEnd, versions},
	{[]string{results.KindSkipped}, onEnd, skipped},
	{[]string{results.KindMachine}, onEnd, machine},
	{[]string{results.KindFrequency}, onEnd, frequencyMoved},
	{[]string{results.KindTuneLost}, onEnd, tuneLost},
}

// facts are what the rules of a level read: the rules in force, and the
// report, record, benchmark or run being judged.
type facts struct {
	rules   Rules
	rep     *evidence.Scheduling
	verdict *Verdict // what the report's rules have found so far
	bench   *results.Benchmark
	rec     *results.RunRecord // a counted run of bench
	run     *results.Run
	end     *Ending
}

// start is the machine's condition before the run's first benchmark run,
// nil where it could not be read.
func (f *facts) start() *evidence.Facts {
	if f.run.System == nil {
		return nil
	}
	return f.run.System.Start
}

// judge runs the rules of one level, in order.
func (f *facts) judge(l level) []Finding {
	var out []Finding
	for _, r := range rules {
		if r.level == l {
			out = append(out, r.find(f)...)
		}
	}
	return out
}
