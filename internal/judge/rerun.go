package judge

import "corepin.dev/corepin/results"

// MaxSharedReruns is how many times one run whose target CPU was shared is
// run again. A daemon's burst, a kernel worker or a test harness's own
// start can take a tenth of a short run's CPU once; a competitor that is
// still there after this many re-runs is the machine's state, which the
// run's warning then says.
const MaxSharedReruns = 2

// MaxSpeedReruns is how many times the speed gate re-runs one run that
// was called slowed: a core slowed for longer than that is the machine's
// state, which the run's warnings then say, not bad luck.
const MaxSpeedReruns = 3

// Reruns decide which counted runs are left out of the statistics and run
// again: a run whose target CPU was shared (unless sharing is allowed,
// which keeps it valid), at most MaxSharedReruns times, and a run called
// slowed, under the speed gate, at most MaxSpeedReruns times. Each dropped
// run stays in run.json with its reason.
type Reruns struct {
	Words     Words
	SpeedGate bool
	// Left is what the bound on all runs (Limit) leaves for re-runs of
	// every kind.
	Left, Limit int
	// sharedForGood is set once a run stayed shared through all its
	// re-runs: the competitor is not passing, and running each later
	// shared run three times would only triple the time to say so. The
	// next counted run that is not shared clears it.
	sharedForGood bool
}

// Attempt is one run's re-runs so far: all of them, and those because its
// target was shared.
type Attempt struct{ Reruns, Shared int }

// Why says why rec is dropped and run again, "" to keep it, with a
// warning in rec when a limit, not the run, kept it. It counts a shared
// re-run in a.Shared; the caller counts every re-run in a.Reruns.
func (re *Reruns) Why(rec *results.RunRecord, ref results.SpeedReference, a *Attempt) string {
	if rec.Warmup {
		return ""
	}
	if sharedOnly(rec) {
		return re.shared(rec, a)
	}
	if rec.Sharing != SharedInvalid {
		re.sharedForGood = false // the competitor has gone
	}
	if !re.SpeedGate || rec.Error != "" || !rec.Valid || !re.Words.JudgeSpeed(rec, ref) {
		return "" // not a time, or not slowed: nothing to re-run for speed
	}
	speed := a.Reruns - a.Shared
	switch {
	case speed == MaxSpeedReruns:
		re.keep(rec, results.KindSpeedGate, gateKept{reruns: MaxSpeedReruns})
		return ""
	case re.Left == 0:
		re.keep(rec, results.KindSpeedGate, gateKept{limit: re.Limit})
		return ""
	}
	re.Left--
	return re.Words.Text(find(results.KindSpeedGate, Rerun, nil, gated{claim: rec.SpeedText(), n: speed + 1}))
}

// shared is Why for a run whose target was shared.
func (re *Reruns) shared(rec *results.RunRecord, a *Attempt) string {
	switch {
	case re.sharedForGood:
		re.keep(rec, results.KindSharedRerun, sharedKept{})
	case a.Shared == MaxSharedReruns:
		re.sharedForGood = true
		re.keep(rec, results.KindSharedRerun, sharedKept{stayed: MaxSharedReruns})
	case re.Left == 0:
		re.keep(rec, results.KindSharedRerun, sharedKept{limit: re.Limit})
	default:
		re.Left--
		a.Shared++
		return re.Words.Text(find(results.KindSharedRerun, Rerun, nil, sharedAgain{err: rec.Error, n: a.Shared}))
	}
	return ""
}

// keep warns that a limit, not the run, kept it.
func (re *Reruns) keep(rec *results.RunRecord, kind string, p Params) {
	f := find(kind, Warn, nil, p)
	f.Run = rec.Index
	rec.Warnings = append(rec.Warnings, re.Words.Warning(f))
}
