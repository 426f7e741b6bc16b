package runner

import (
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
)

// words are the run's texts, with the command's flag names.
func (cfg *Config) words() judge.Words { return judge.Words{Flags: cfg.Flags} }

// judge records the judge's verdict on a run of the suite (judge.Record).
func (cfg *Config) judge(rec *results.RunRecord, rep *launch.Report) {
	if rep == nil {
		return
	}
	r := judge.Rules{MaxOthers: cfg.MaxOthers, AllowSharing: cfg.AllowSharing, Mode: cfg.Request.ModeOrDefault()}
	if rep.Readback.Policy.Realtime() {
		r.Throttle = throttle()
	}
	cfg.words().Record(rec, &rep.Scheduling, r)
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

// maxOthers is the --max-others in force.
func (cfg *Config) maxOthers() float64 {
	if cfg.MaxOthers <= 0 {
		return judge.DefaultMaxOthers
	}
	return cfg.MaxOthers
}
