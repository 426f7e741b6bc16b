package runner

import (
	"fmt"
	"strings"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// Thresholds of the sharing verdict, as shares of the time the work
// wanted a CPU.
const (
	DefaultMaxWait = 0.02 // above it a run is marked with a warning
	InvalidWait    = 0.10 // above it a run is invalid, unless sharing is allowed
	// CoverageWarn: below it the residency describes too little of the
	// tree's CPU time to stand for the work.
	CoverageWarn = 0.80
)

// judge marks a run whose target CPU was not the work's own: a warning
// when the work waited for it more than MaxWait of its time, invalid when
// more than InvalidWait (or, in exact mode, when more threads were busy
// than there are target CPUs) unless AllowSharing; and a warning when the
// residency covers too little of the tree's CPU time. It also records
// the others' use of the target: the telemetry's utilisation minus the
// tree's own CPU time.
func (cfg *Config) judge(rec *results.RunRecord) {
	sch := rec.Scheduling
	if sch == nil || sch.Sharing == nil {
		return
	}
	maxWait := cfg.maxWait()
	warn := func(format string, a ...any) { rec.Warnings = append(rec.Warnings, fmt.Sprintf(format, a...)) }
	invalid := func(why string) {
		if cfg.AllowSharing {
			warn("%s (allowed by --allow-sharing)", why)
			return
		}
		// Said even when the run is already invalid (a watcher that could
		// not vouch for it): a shared run's time is never counted.
		rec.Valid = false
		switch {
		case rec.Error == "":
			rec.Error = why
		case !strings.Contains(rec.Error, why):
			rec.Error += "; " + why
		}
	}
	sh := sch.Sharing
	if ws := sh.WaitShare; ws != nil {
		why := fmt.Sprintf("the target CPU was shared: the work waited %.0f%% of its time", 100**ws)
		switch {
		case *ws > max(InvalidWait, maxWait):
			invalid(why)
		case *ws > maxWait:
			warn("the work waited %.1f%% of its time for the target CPU, above --max-wait %.1f%%", 100**ws, 100*maxWait)
		}
	}
	if cfg.Request.ModeOrDefault() != session.Soft && sh.BusyThreads > sh.UsableCPUs {
		invalid(fmt.Sprintf("the target CPU was shared: %d busy threads ran on %d target CPU(s) in exact mode", sh.BusyThreads, sh.UsableCPUs))
	}
	if c := sch.Coverage; c != nil && c.Coverage != nil && *c.Coverage < CoverageWarn {
		warn("the %s residency covers only %.0f%% of the tree's CPU time: threads and processes that lived between two samples were not seen", c.ResidencySource, 100**c.Coverage)
	}
	if sch.Readback.Policy.Realtime() {
		if t, err := sched.ReadRTThrottle(fsroot.Host); err == nil && t.Active() {
			warn("%s", t.Warning())
		}
	}
	if u := rec.Telemetry.UtilMeanPct; u != nil && sch.Child.WallS > 0 && sch.Coverage != nil {
		used := *u / 100 * sch.Child.WallS * float64(sh.UsableCPUs)
		others := max(0, used-sch.Coverage.TreeCPUS)
		rec.OthersCPUS = &others
	}
}

// maxWait is the --max-wait in force.
func (cfg *Config) maxWait() float64 {
	if cfg.MaxWait <= 0 {
		return DefaultMaxWait
	}
	return cfg.MaxWait
}
