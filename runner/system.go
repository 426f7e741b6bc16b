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

// systemEnd records the machine's condition after the last run, and
// says what of the run's tune was undone under it ("" when nothing was):
// read before the tune itself is undone, a value it set or relies on that
// reads otherwise now was undone under the run.
func (cfg *Config) systemEnd(run *results.Run) (lost string) {
	if run.System == nil {
		return ""
	}
	run.System.End, _ = system.Read(cfg.Root, cfg.Request.Mask())
	return cfg.Tuned.LostWarning()
}
