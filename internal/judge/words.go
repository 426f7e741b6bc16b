package judge

import (
	"fmt"
	"strings"
	"time"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// Flags are the names, on the command that judges, of the flags a text
// may advise ("--max-others"). A flag the command does not have is "",
// and no text names it: a text never advises what cannot be done.
type Flags struct {
	MaxOthers    string // the share of the target others may take
	AllowSharing string // keeps a shared run valid
	Warmup       string // warm-up runs
	SpeedGate    string // re-runs of slowed runs
	Watch        string // the watcher's period
	WaitOnline   string // the wait for an offline target
}

// Words makes the texts of findings, with the command's flag names: the
// one place every finding is worded.
type Words struct {
	Flags Flags
}

// Text is the finding in words.
func (w Words) Text(f Finding) string { return f.Params.text(w.Flags) }

// Warning is the finding as run.json keeps it.
func (w Words) Warning(f Finding) results.Warning {
	return results.Warning{Run: f.Run, Kind: f.Kind, Severity: string(f.Severity), Text: w.Text(f), Value: f.Value}
}

// Warnings are the findings as run.json keeps them, in order.
func (w Words) Warnings(fs []Finding) []results.Warning {
	out := make([]results.Warning, 0, len(fs))
	for _, f := range fs {
		out = append(out, w.Warning(f))
	}
	return out
}

// advise is ": use FLAG" style advice: text with the flag's name, or
// nothing where the command has no such flag.
func advise(format, flag string) string {
	if flag == "" {
		return ""
	}
	return fmt.Sprintf(format, flag)
}

// said is a finding whose text was made by the package that read its
// fact (the machine's condition, the realtime throttle): the judge gives
// it its kind and severity, and passes the text on.
type said struct{ what string }

func (p said) text(Flags) string { return p.what }

// The texts of a run's report (sharing, its wait, its threads, its
// coverage, what left its cgroup, its watcher).

// sharedPrefix starts the error of a run whose target was shared, and
// nothing else's.
const sharedPrefix = "the target CPU was shared: "

// shared is a target others took more of than --max-others.
type shared struct {
	verdict    string  // SharedWarned, SharedAllowed or SharedInvalid
	share      float64 // others' share of the target
	othersS    float64
	windowS    float64
	cpus       int
	source     string // where others' time comes from
	preemptors string // who they were, where traced
	maxOthers  float64
	// judged is the share the verdict weighs: others' time less the
	// target's own kernel threads' (kernelS) and the readings'
	// resolution (resolutionS).
	judged               float64
	kernelS, resolutionS float64
}

func (p shared) text(fl Flags) string {
	var less []string
	if p.kernelS > 0 {
		less = append(less, "the target's own per-CPU kernel threads' "+results.FormatSeconds(p.kernelS))
	}
	if p.resolutionS > 0 {
		less = append(less, "the readings' "+results.FormatSeconds(p.resolutionS)+" resolution")
	}
	judged := ""
	if len(less) > 0 {
		judged = fmt.Sprintf("; %.1f%% without %s", 100*p.judged, strings.Join(less, " and "))
	}
	what := fmt.Sprintf("others took %.1f%% of the target CPU's time (%s of %s on %d CPU(s), from %s%s)",
		100*p.share, results.FormatSeconds(p.othersS), results.FormatSeconds(p.windowS), p.cpus, p.source, judged)
	if p.preemptors != "" {
		what += ": " + p.preemptors
	}
	switch p.verdict {
	case SharedWarned:
		return fmt.Sprintf("%s, above %s%.1f%%", what, advise("%s ", fl.MaxOthers), 100*p.maxOthers)
	case SharedAllowed:
		return sharedPrefix + what + advise(" (allowed by %s)", fl.AllowSharing)
	}
	return sharedPrefix + what
}

// ownKernel is the target's own per-CPU kernel threads' time, above
// --max-others: said, and left out of the others' time judged.
type ownKernel struct {
	share, s, windowS float64
	threads           string // who they were
}

func (p ownKernel) text(Flags) string {
	what := fmt.Sprintf("the target CPU's own per-CPU kernel threads ran %.1f%% of its time (%s of %s)", 100*p.share, results.FormatSeconds(p.s), results.FormatSeconds(p.windowS))
	if p.threads != "" {
		what += ": " + p.threads
	}
	return what + "; every CPU has them and no shield or tune moves them, so the judge leaves them out of the others' time it weighs"
}

// coarse is a run too short for /proc/stat's ticks to judge.
type coarse struct {
	source                  string
	tickS, resolutionS, atS float64 // atS: the shortest run they can judge
}

func (p coarse) text(Flags) string {
	return fmt.Sprintf("too short to judge sharing from %s: with no nanosecond account of the target here (cpuacct), its ticks of %s leave a run's others' time %s uncertain, so only runs of at least %s can tell a tenth of the target taken by others from none",
		p.source, results.FormatSeconds(p.tickS), results.FormatSeconds(p.resolutionS), results.FormatSeconds(p.atS))
}

// asleep is work that wanted its CPU too little of its window for what
// others took of it to matter; waitKnown says whether its wait was known
// for all of it (wantedS is then its CPU time and wait, else its CPU
// time alone).
type asleep struct {
	waitKnown        bool
	wantedS, windowS float64
}

func (p asleep) text(Flags) string {
	if p.waitKnown {
		return fmt.Sprintf("the work wanted a CPU for %s of the run's %s (it slept or waited on something else): what others took of the target while it slept cost it nothing",
			results.FormatSeconds(p.wantedS), results.FormatSeconds(p.windowS))
	}
	return fmt.Sprintf("the work used a CPU for %s of the run's %s, and its wait for one is not known for all of it: a run that slept cannot be told from one that others held back",
		results.FormatSeconds(p.wantedS), results.FormatSeconds(p.windowS))
}

// waited is the work's wait for its CPU: behind its own threads, or
// behind whom is not known.
type waited struct {
	own   bool
	share float64
}

func (p waited) text(Flags) string {
	if p.own {
		return fmt.Sprintf("the work's own threads waited %.1f%% of their time for the target CPU, behind each other (what else ran there took too little to cause it)", 100*p.share)
	}
	return fmt.Sprintf("the work waited %.1f%% of its time for the target CPU (cause unknown)", 100*p.share)
}

// turns are more busy threads than target CPUs.
type turns struct{ busy, usable int }

func (p turns) text(Flags) string {
	return fmt.Sprintf("%d busy threads of the work took turns on %d target CPU(s): its own contention, not sharing", p.busy, p.usable)
}

// covers is a residency that describes too little of the tree's CPU time.
type covers struct {
	source   string
	coverage float64
}

func (p covers) text(Flags) string {
	return fmt.Sprintf("the %s residency covers only %.0f%% of the tree's CPU time: threads and processes that lived between two samples were not seen", p.source, 100*p.coverage)
}

// left are processes that left the run's cgroup: their CPU time seen
// outside, and the most they may have used there (the kernel does not
// say when they moved).
type left struct {
	n           int
	cpuS, mostS float64
}

func (p left) text(Flags) string {
	upTo := ""
	// Less than two of /proc's 10 ms ticks apart, the two counts say
	// the same.
	if p.mostS-p.cpuS >= 0.02 {
		upTo = fmt.Sprintf("; from when each was last seen inside (or from its start), they used up to %s: the kernel does not say when they moved", results.FormatSeconds(p.mostS))
	}
	return fmt.Sprintf("%d process(es) left the run's cgroup: their CPU time (%s) is counted from /proc, their residency is sampled%s",
		p.n, results.FormatSeconds(p.cpuS), upTo)
}

// unvouched is a watcher that missed so many ticks that it cannot say
// where the work ran.
type unvouched struct {
	missed, expected int
	share            float64
	priority         string
	check            bool // worded as the run's failed check
}

func (p unvouched) text(Flags) string {
	if p.check {
		return fmt.Sprintf("missed %d of %d ticks: residency cannot be vouched for", p.missed, p.expected)
	}
	return fmt.Sprintf("the watcher missed %d of %d ticks (%.0f%%, at %s): residency cannot be vouched for", p.missed, p.expected, 100*p.share, p.priority)
}

// watcherCost is the watcher's own CPU time where it shared the target.
type watcherCost struct{ share, most float64 }

func (p watcherCost) text(fl Flags) string {
	return fmt.Sprintf("the watcher used %.1f%% of a CPU (above %.0f%%)%s", 100*p.share, 100*p.most, advise(": use a longer %s period", fl.Watch))
}

// The texts of what slowed a run (results.RunRecord.SlowedBy).

// throttled is a CPU bandwidth limit on the work's cgroup.
type throttled struct {
	s      float64
	cgroup string
}

func (p throttled) text(Flags) string {
	return fmt.Sprintf("a CPU bandwidth limit held its cgroup back for %s (%s, cpu.stat)", results.FormatSeconds(p.s), p.cgroup)
}

// steal is the hypervisor's time on the target.
type steal struct{ s float64 }

func (p steal) text(Flags) string {
	return "the hypervisor took " + results.FormatSeconds(p.s) + " of the target (steal)"
}

// othersTook is others' time on the target during the run, and who they
// were where traced.
type othersTook struct {
	s     float64
	names string
}

func (p othersTook) text(Flags) string {
	s := "others took " + results.FormatSeconds(p.s) + " of the target during it"
	if p.names != "" {
		s += " (" + p.names + ")"
	}
	return s
}

// slowCore is a core that ran the same work slower: more CPU time, with a
// probe that agrees, and its frequency where cpufreq gives it.
type slowCore struct {
	factor, probe float64
	freq          *frequencyRange
}

func (p slowCore) text(Flags) string {
	var freq string
	if f := p.freq; f != nil {
		freq = fmt.Sprintf("; frequency %.0f–%.0f MHz, mean %.0f (%s)", f.min, f.max, f.mean, f.source)
	}
	return fmt.Sprintf("it needed %.2f× its best run's CPU time, and the speed probe after it read the core at %.2f of its best: the core ran it slower (from outside this machine's scheduler%s)",
		p.factor, p.probe, freq)
}

// frequencyRange is the target's frequency during a run.
type frequencyRange struct {
	min, max, mean float64
	source         string
}

// The texts of a benchmark (its statistics and its runs' records).

// notAFigure is a counted run's figure that is not one.
type notAFigure results.FigureProblem

func (p notAFigure) text(Flags) string {
	return fmt.Sprintf("a run's %s, %s, is not %s (%s): it is left out of the statistics, and the benchmark is invalid", p.Label, p.Raw, p.Noun, p.Why)
}

// unfinishedRuns are planned runs that did not complete.
type unfinishedRuns struct{ completed, planned int }

func (p unfinishedRuns) text(Flags) string {
	return fmt.Sprintf("%d of %d planned runs completed: the benchmark is invalid", p.completed, p.planned)
}

// invalidRuns are counted runs that failed; why names the first and its
// reason (results.Benchmark.WhyInvalid).
type invalidRuns struct{ why string }

func (p invalidRuns) text(Flags) string {
	if p.why == "" {
		return "a counted run failed its output check, did not finish or shared its target: the benchmark is invalid"
	}
	return p.why + ": the benchmark is invalid"
}

// spreadOf is a coefficient of variation above the most it may be.
type spreadOf struct{ cv, most float64 }

func (p spreadOf) text(Flags) string {
	return fmt.Sprintf("spread %.1f%% (coefficient of variation) is above %.0f%%: rerun with more runs on a quieter machine", 100*p.cv, 100*p.most)
}

// slowFirst is a first counted run longer than the median by longer
// percent, and what slowed it where it was called slowed.
type slowFirst struct {
	longer   float64
	slowedBy string
}

func (p slowFirst) text(fl Flags) string {
	if p.slowedBy != "" {
		return fmt.Sprintf("the first run took %.0f%% longer than the median, and was slowed: %s", p.longer, p.slowedBy)
	}
	return fmt.Sprintf("the first run took %.0f%% longer than the median: the work's caches or memory were likely not warm, or the core was slow then%s", p.longer, advise("; use %s", fl.Warmup))
}

// outlierRuns are the outliers (indexes into the runs), and those of them
// that were called slowed, with their speeds.
type outlierRuns struct {
	runs, slowed []int
	speeds       []float64
}

func (p outlierRuns) text(Flags) string {
	var why string
	if len(p.slowed) > 0 {
		speeds := fmt.Sprintf("%.2f", p.speeds[0])
		runs := fmt.Sprint(p.slowed[0])
		for i := 1; i < len(p.slowed); i++ {
			speeds += fmt.Sprintf(", %.2f", p.speeds[i])
			runs += fmt.Sprintf(", %d", p.slowed[i])
		}
		why = fmt.Sprintf("; run(s) %s were slowed (at %s of the best run's speed; each run's warning says by what), not the others", runs, speeds)
		if len(p.slowed) == len(p.runs) {
			why = fmt.Sprintf("; each was slowed (at %s of its best run's speed; the run's warning says by what)", speeds)
		}
	}
	return fmt.Sprintf("%d outlier run(s) by median absolute deviation: %v%s", len(p.runs), p.runs, why)
}

// droppedRuns are runs left out and run again: slowed under the speed
// gate, or shared; the first of the two lines says which runs the
// statistics are of.
type droppedRuns struct {
	n        int
	shared   bool
	first    bool
	included []int
}

func (p droppedRuns) text(fl Flags) string {
	var of string
	switch {
	case p.first && len(p.included) == 0:
		of = "no run is in the statistics; "
	case p.first:
		of = fmt.Sprintf("the statistics are of runs %v; ", p.included)
	}
	if p.shared {
		return fmt.Sprintf("%s%d run(s) whose target CPU was shared were dropped and run again (kept in dropped_runs)", of, p.n)
	}
	return fmt.Sprintf("%s%d run(s) called slowed were dropped by %s and re-run (kept in dropped_runs)", of, p.n, gate(fl))
}

// gate names the speed gate: its flag, where the command has one.
func gate(fl Flags) string {
	if fl.SpeedGate == "" {
		return "the speed gate"
	}
	return fl.SpeedGate
}

// varied is a target frequency that moved within a run.
type varied struct{ min, max float64 }

func (p varied) text(Flags) string {
	return fmt.Sprintf("the target's frequency varied %.0f%% (%.0f-%.0f MHz)", 100*(p.max-p.min)/p.max, p.min, p.max)
}

// sampler is the telemetry sampler's own note.
type sampler struct{ note string }

func (p sampler) text(Flags) string { return "telemetry: " + p.note }

// watcherError is the watcher's own error.
type watcherError struct{ err string }

func (p watcherError) text(Flags) string { return "watcher: " + p.err }

// offTarget is work off the target for some of its running samples.
type offTarget struct{ ratio float64 }

func (p offTarget) text(Flags) string {
	return fmt.Sprintf("the work was on the target for only %.1f%% of its running samples", 100*p.ratio)
}

// weakerStep is a ladder that settled below the first step tried, or on
// none.
type weakerStep struct {
	name            string
	accepted, first int
}

func (p weakerStep) text(Flags) string {
	if p.accepted == 0 {
		return fmt.Sprintf("no step of ladder %s held", p.name)
	}
	return fmt.Sprintf("ladder %s settled on step %d, below the first step tried (%d)", p.name, p.accepted, p.first)
}

// notRestored is a thread whose scheduling could not be put back, by how
// the work started.
type notRestored struct{ start, failure string }

func (p notRestored) text(Flags) string {
	switch p.start {
	case evidence.StartFork:
		// Nothing is left changed: the thread was ended instead.
		return fmt.Sprintf("corepin's thread that started the command could not be put back, so it was ended (%s)", p.failure)
	case evidence.StartThread:
		return fmt.Sprintf("the work's thread could not be put back, so it was ended (%s)", p.failure)
	}
	return fmt.Sprintf("the scheduling restore failed (%s)", p.failure)
}

// Phrases say each kind the terminal sums up once for the whole run
// (results.Run.SummaryWarnings), with the command's flag names.
func (w Words) Phrases() results.Phrases {
	fl := w.Flags
	return results.Phrases{
		results.KindShared:      {Text: "others took %s of the target CPU's time", Share: true},
		results.KindOwnWait:     {Text: "the work's own threads waited %s of their time for the target CPU, behind each other (what else ran there took too little to cause it)", Share: true},
		results.KindWait:        {Text: "the work waited %s of its time for the target CPU (cause unknown)", Share: true},
		results.KindOwnThreads:  {Text: "%s busy threads of the work took turns on the target CPUs"},
		results.KindCoverage:    {Text: "the sampled residency covers only %s of the tree's CPU time", Share: true},
		results.KindSpeed:       {Text: "runs were slowed to %s of their benchmark's best run's speed (by what: each run's warning in run.json and on the page)", Share: true},
		results.KindSpeedGate:   {Text: "%s run(s) per benchmark called slowed were dropped by " + gate(fl) + " and re-run"},
		results.KindSharedRerun: {Text: "%s run(s) per benchmark whose target CPU was shared were dropped and run again"},
		results.KindWatcherCost: {Text: fmt.Sprintf("the watcher used %%s of a CPU off the target (above %.0f%%%%)", 100*WatcherCostWarn) + advise(": a longer %s period costs less", fl.Watch), Share: true},
		results.KindSpread:      {Text: fmt.Sprintf("spread %%s (coefficient of variation) is above %.0f%%%%: rerun with more runs on a quieter machine", 100*SpreadWarn), Share: true},
	}
}

// The texts of a run of benchmarks as a whole.

// unscored is a run without a score: the benchmarks without a reference
// time or invalid, and whether it stopped early.
type unscored struct {
	unreferenced, invalid []string
	stopped               bool
}

func (p unscored) text(Flags) string {
	var why []string
	if n := len(p.unreferenced); n > 0 {
		verb := "have"
		if n == 1 {
			verb = "has"
		}
		why = append(why, fmt.Sprintf("%s %s no reference time", names(p.unreferenced), verb))
	}
	if len(p.invalid) > 0 {
		why = append(why, names(p.invalid)+" invalid or unfinished")
	}
	if p.stopped {
		why = append(why, "the run stopped early")
	}
	if len(why) == 0 {
		return "no score: a benchmark is invalid, unfinished or has no reference time"
	}
	return "no score: " + strings.Join(why, "; ")
}

// wentOffline is the target offline before the run next.
type wentOffline struct {
	next, why     string
	waited, limit time.Duration
	stopped       bool
}

func (p wentOffline) text(fl Flags) string {
	switch {
	case p.stopped && p.limit <= 0:
		return fmt.Sprintf("stopped early before %s: %s%s", p.next, p.why, advise(" (%s waits for it to come back)", fl.WaitOnline))
	case p.stopped:
		return fmt.Sprintf("stopped early before %s: %s and did not come back within %v", p.next, p.why, p.limit)
	}
	return fmt.Sprintf("%s before %s; waited %.1f s for it to come back", p.why, p.next, p.waited.Seconds())
}

// unversioned is a program that could not tell its version.
type unversioned Unversioned

func (p unversioned) text(Flags) string {
	return fmt.Sprintf("%s: %s: its signatures cannot be checked", p.Name, p.Why)
}

// skip is a benchmark the suite skipped.
type skip results.Skip

func (p skip) text(Flags) string { return fmt.Sprintf("%s was skipped: %s", p.Name, p.Why) }

// moved is a locked target frequency that moved during a benchmark's run.
type moved struct {
	bench            string
	min, max, locked float64
}

func (p moved) text(Flags) string {
	return fmt.Sprintf("%s: the target's frequency moved between %.0f and %.0f MHz while it was locked at %.0f MHz: thermal throttling, or a daemon undid the lock", p.bench, p.min, p.max, p.locked)
}

// The texts of re-runs.

// sharedAgain is a shared run dropped and run again, the n-th time.
type sharedAgain struct {
	err string // the run's error: its target was shared
	n   int
}

func (p sharedAgain) text(Flags) string {
	return fmt.Sprintf("%s; dropped and run again (%d of at most %d)", p.err, p.n, MaxSharedReruns)
}

// sharedKept is a shared run not run again: a run before it stayed shared
// through its re-runs, this one did (stayed, its re-runs), or re-runs
// reached the bound on all runs (limit).
type sharedKept struct{ stayed, limit int }

func (p sharedKept) text(Flags) string {
	switch {
	case p.stayed > 0:
		return fmt.Sprintf("still shared after %d re-runs: the target is not the work's own for now, so later runs whose target is shared are not run again", p.stayed)
	case p.limit > 0:
		return fmt.Sprintf("not run again: re-runs reached the limit of %d runs in all", p.limit)
	}
	return "not run again: a run just before it stayed shared through its re-runs, and no run since was the work's own"
}

// gated is a run called slowed, dropped by the speed gate and run again,
// the n-th time.
type gated struct {
	claim string // results.RunRecord.SpeedText
	n     int
}

func (p gated) text(fl Flags) string {
	return fmt.Sprintf("%s; dropped by %s and re-run (%d of at most %d)", p.claim, gate(fl), p.n, MaxSpeedReruns)
}

// gateKept is a slowed run the speed gate kept: still slowed after its
// re-runs, or re-runs reached the bound on all runs (limit).
type gateKept struct{ reruns, limit int }

func (p gateKept) text(fl Flags) string {
	if p.limit > 0 {
		return fmt.Sprintf("slowed, not run again by %s: re-runs reached the limit of %d runs in all; counted as it is", gate(fl), p.limit)
	}
	return fmt.Sprintf("still slowed after %d re-runs by %s: counted as it is", p.reruns, gate(fl))
}
