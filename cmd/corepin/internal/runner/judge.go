package runner

import (
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
)

// judge records the judge's verdict on a run of the suite (judge.Record).
func (r *suiteRun) judge(rec *results.RunRecord, rep *launch.Report) {
	if rep == nil {
		return
	}
	cfg := r.cfg
	rules := judge.Rules{MaxOthers: cfg.MaxOthers, AllowSharing: cfg.AllowSharing, Mode: cfg.Request.ModeOrDefault()}
	if rep.Readback.Policy.Realtime() {
		rules.Throttle = throttle()
	}
	r.words.Record(rec, &rep.Scheduling, rules)
}

// throttle says what the realtime throttle costs a realtime thread here,
// "" when nothing or when it cannot be read.
func throttle() string {
	t, err := sched.ReadRTThrottle(fsroot.Host)
	if err != nil {
		return ""
	}
	return t.Warning()
}
