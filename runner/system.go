package runner

import (
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/system"
)

// systemStart records the machine's condition for measuring on the target
// before the first run, and the tune made for the run.
func (cfg *Config) systemStart(run *results.Run) {
	cfg.startFacts, _ = system.Read(cfg.Root, cfg.Request.Mask()) // nil where /sys cannot be read: the fact is absent
	run.System = &evidence.RunFacts{Start: cfg.startFacts, Tuned: tunedEvidence(cfg.Tuned)}
}

// systemEnd records the condition after the last run and warns when it
// was not fit for measuring: an important check failing at the start, the
// target's frequency moving while it was locked, or the run's tune undone
// under it.
func (cfg *Config) systemEnd(run *results.Run) {
	if run.System == nil {
		return
	}
	run.System.End, _ = system.Read(cfg.Root, cfg.Request.Mask())
	// Before the tune is undone: a value it set or relies on that reads
	// otherwise now was undone under the run.
	lost := cfg.Tuned.LostWarning()
	defer func() {
		if lost != "" {
			run.Warnings = append(run.Warnings, lost)
		}
	}()
	start := cfg.startFacts
	if start == nil {
		return
	}
	run.Warnings = append(run.Warnings, start.Warnings()...)
	locked := start.LockedKHz(cfg.Request.CPU)
	for _, b := range run.Benchmarks {
		for _, r := range b.Runs {
			if w := system.FrequencyMoved(locked, r.Telemetry.FreqMinMHz, r.Telemetry.FreqMaxMHz); w != "" {
				run.Warnings = append(run.Warnings, b.Name+": "+w)
				break
			}
		}
	}
}
