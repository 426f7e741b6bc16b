package judge

import (
	"fmt"

	"corepin.dev/corepin/results"
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
}

func (p shared) text(fl Flags) string {
	what := fmt.Sprintf("others took %.1f%% of the target CPU's time (%s of %s on %d CPU(s), from %s)",
		100*p.share, results.FormatSeconds(p.othersS), results.FormatSeconds(p.windowS), p.cpus, p.source)
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
