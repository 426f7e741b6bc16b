package judge

import (
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// Exec judges a command corepin exec ran, as Report judges any run, and
// says where its watcher fell short. exec keeps the command's exit
// status: what it finds is said, never made an exit code.
func Exec(rep *evidence.Scheduling, r Rules) []Finding {
	return append(Report(rep, r).Findings, keptUp(rep)...)
}

// keptUp says where the watcher fell short: ticks it missed, so that it
// cannot vouch for where the work ran (not said of a run too short to
// judge, which claims its sampled residency neither way), and its own
// CPU time where it shared the target (kept off it, the figure stays in
// the report alone).
func keptUp(rep *evidence.Scheduling) []Finding {
	w := rep.Watch
	if w == nil {
		return nil
	}
	var out []Finding
	k := w.KeepUp
	if short := rep.Coverage != nil && rep.Coverage.TooShort != ""; k.Unvouched && !short {
		out = append(out, find(results.KindWatcher, Warn, nil,
			unvouched{missed: k.Missed, expected: k.Expected, share: k.MissedShare, priority: k.Priority}))
	}
	if k.TooExpensive && (w.WatcherCPUs.IsEmpty() || !w.WatcherCPUs.Intersect(rep.Readback.CPUs).IsEmpty()) {
		out = append(out, find(results.KindWatcherCost, Warn, ptr(k.CPUShare), watcherCost{share: k.CPUShare, most: WatcherCostWarn}))
	}
	return out
}
