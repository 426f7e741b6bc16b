package judge

import (
	"strings"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// WatcherKeptUp is the check a run of the suite fails when its watcher
// could not vouch for where it ran.
const WatcherKeptUp = "the watcher kept up"

// Record judges a run of the suite as it ends, from its report, and keeps
// the verdict in its record: a watcher that could not vouch for it makes
// it invalid in exact mode (a failed check), and so does a shared target
// (its error, said even when the run is already invalid for another
// reason: a shared run's time is never counted); its sharing, others'
// time and warnings are kept.
func (w Words) Record(rec *results.RunRecord, rep *evidence.Scheduling, r Rules) {
	if rep == nil {
		return
	}
	f := &facts{rules: r, rep: rep}
	for _, fd := range f.judge(onRunEnd) {
		w.invalidate(rec, fd)
	}
	if rep.Sharing == nil {
		return
	}
	v := Report(rep, r)
	rec.Sharing, rec.WaitCause = v.Sharing, v.WaitCause
	if v.Note != nil {
		rec.SharingNote = w.Text(*v.Note)
	}
	if o := rep.Sharing.Others; o != nil {
		s, share := o.S, o.Share
		rec.OthersS, rec.OthersShare, rec.OthersSource = &s, &share, othersSource(o)
	}
	for _, fd := range v.Findings {
		if fd.Severity == Invalid {
			w.invalidate(rec, fd)
			continue
		}
		rec.Warnings = append(rec.Warnings, w.Warning(fd))
	}
}

// invalidate makes the run invalid by what f found: a failed check of its
// watcher, or its error.
func (w Words) invalidate(rec *results.RunRecord, f Finding) {
	rec.Valid = false
	text := w.Text(f)
	switch {
	case f.Kind == results.KindWatcher:
		rec.Checks = append(rec.Checks, evidence.Outcome{What: WatcherKeptUp, Passed: false, Detail: text})
	case rec.Error == "":
		rec.Error = text
	case !strings.Contains(rec.Error, text):
		rec.Error += "; " + text
	}
}

// vouched makes a run of the suite invalid in exact mode when its
// watcher missed so many ticks that it cannot say the work stayed on its
// CPU.
func vouched(f *facts) []Finding {
	wr := f.rep.Watch
	if wr == nil || f.rules.Mode == evidence.Soft || !wr.KeepUp.Unvouched {
		return nil
	}
	k := wr.KeepUp
	return []Finding{find(results.KindWatcher, Invalid, nil, unvouched{missed: k.Missed, expected: k.Expected, check: true})}
}

// sharedOnly reports whether rec is invalid only because its target CPU
// was shared: a run whose output check failed, or that failed on its
// own, keeps that verdict.
func sharedOnly(rec *results.RunRecord) bool {
	if rec.Sharing != SharedInvalid || !strings.HasPrefix(rec.Error, sharedPrefix) {
		return false
	}
	for _, c := range rec.Checks {
		if !c.Passed {
			return false
		}
	}
	return true
}
