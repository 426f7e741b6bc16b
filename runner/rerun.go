package runner

import (
	"fmt"

	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/results"
)

// MaxSharedReruns is how many times one run whose target CPU was shared is
// run again. A daemon's burst, a kernel worker or a test harness's own
// start can take a tenth of a short run's CPU once; a competitor that is
// still there after this many re-runs is the machine's state, which the
// run's error then says.
const MaxSharedReruns = 2

// rerunner decides which counted runs are left out of the statistics and
// run again: a run whose target CPU was shared (unless --allow-sharing
// kept it valid), at most MaxSharedReruns times, and a run called slowed,
// under --speed-gate, at most MaxSpeedReruns times.
// Each dropped run stays in run.json with its reason.
type rerunner struct {
	speedGate bool
	// left is what MaxTotalRuns leaves for re-runs of every kind.
	left int
	// sharedForGood is set once a run stayed shared through all its
	// re-runs: the competitor is not passing, and running each later
	// shared run three times would only triple the time to say so. The
	// next counted run that is not shared clears it.
	sharedForGood bool
}

// reason says why rec is dropped and run again, "" to keep it, with a
// warning when a limit, not the run, kept it. It counts a shared re-run in
// j.sharedReruns; the caller counts every re-run in j.rerun.
func (re *rerunner) reason(rec *results.RunRecord, ref results.SpeedReference, j *job) string {
	if rec.Warmup {
		return ""
	}
	if shared := sharedReason(rec); shared != "" {
		return re.sharedRerun(rec, shared, j)
	}
	if rec.Sharing != judge.SharedInvalid {
		re.sharedForGood = false // the competitor has gone
	}
	if !re.speedGate {
		return ""
	}
	speedReruns := j.rerun - j.sharedReruns
	why := gateReason(rec, ref, speedReruns+1)
	switch {
	case why == "":
		return ""
	case speedReruns == MaxSpeedReruns:
		rec.Warnings = append(rec.Warnings, results.Warning{Run: rec.Index, Kind: results.KindSpeedGate,
			Text: fmt.Sprintf("still slowed after %d re-runs by --speed-gate: counted as it is", MaxSpeedReruns)})
		return ""
	case re.left == 0:
		rec.Warnings = append(rec.Warnings, results.Warning{Run: rec.Index, Kind: results.KindSpeedGate,
			Text: fmt.Sprintf("slowed, not run again by --speed-gate: re-runs reached the limit of %d runs in all; counted as it is", MaxTotalRuns)})
		return ""
	}
	re.left--
	return why
}

// sharedRerun is reason for a run whose target was shared.
func (re *rerunner) sharedRerun(rec *results.RunRecord, shared string, j *job) string {
	var why string
	switch {
	case re.sharedForGood:
		why = "not run again: a run just before it stayed shared through its re-runs, and no run since was the work's own"
	case j.sharedReruns == MaxSharedReruns:
		re.sharedForGood = true
		why = fmt.Sprintf("still shared after %d re-runs: the target is not the work's own for now, so later runs whose target is shared are not run again", MaxSharedReruns)
	case re.left == 0:
		why = fmt.Sprintf("not run again: re-runs reached the limit of %d runs in all", MaxTotalRuns)
	default:
		re.left--
		j.sharedReruns++
		return fmt.Sprintf("%s; dropped and run again (%d of at most %d)", shared, j.sharedReruns, MaxSharedReruns)
	}
	rec.Warnings = append(rec.Warnings, results.Warning{Run: rec.Index, Kind: results.KindSharedRerun, Text: why})
	return ""
}

// sharedReason is the error of a run that is invalid only because its
// target CPU was shared, "" for any other run: a run whose output check
// failed, or that failed on its own, keeps that verdict, never re-run.
func sharedReason(rec *results.RunRecord) string {
	if !judge.SharedOnly(rec) {
		return ""
	}
	return rec.Error
}
