package runner

import (
	"context"

	"corepin.dev/corepin/cmd/corepin/internal/system"
	"corepin.dev/corepin/results/evidence"
)

// tune makes the machine's tune for the run, where the config asks for
// one, and says what would undo it and what it could not move; close puts
// the machine back should the run not reach its end.
func (r *suiteRun) tune(ctx context.Context) error {
	t := r.cfg.Tune
	if t == nil {
		return nil
	}
	tuned, err := system.TuneFor(ctx, t.Machine, t.Request, t.Who)
	if err != nil {
		return &TuneError{Err: err}
	}
	r.tuned = tuned
	r.onClose(r.untune)
	if msg := system.IRQWarning(t.Machine.Root, t.Request); msg != "" {
		t.say("warning: " + msg)
	}
	for _, u := range system.UnmovedIRQs(tuned.Result) {
		t.say("warning: not moved off the target, which still gets it: " + u) // the tune's record in run.json has it too
	}
	return nil
}

// untune puts the machine back, once, and says what could not be: the
// run's record of the tune (systemStart) holds its reset.
func (r *suiteRun) untune() {
	if r.tuned == nil {
		return
	}
	if err := r.tuned.Undo(); err != nil {
		r.cfg.Tune.say("putting the machine back: " + err.Error())
	}
	r.tuned = nil
}

func (t *Tune) say(s string) {
	if t.Say != nil {
		t.Say(s)
	}
}

// systemStart records the machine's condition for measuring on the target
// before the first run, and the tune made for the run.
func (r *suiteRun) systemStart() {
	start, _ := system.Read(r.cfg.Root, r.cfg.Request.Mask()) // nil where /sys cannot be read: the fact is absent
	r.res.System = &evidence.RunFacts{Start: start, Tuned: tunedEvidence(r.tuned)}
}

// systemEnd records the machine's condition after the last run, and says
// what of the run's tune was undone under it ("" when nothing was): read
// before the tune itself is undone, a value it set or relies on that
// reads otherwise now was undone under the run.
func (r *suiteRun) systemEnd() (lost string) {
	if r.res.System == nil {
		return ""
	}
	r.res.System.End, _ = system.Read(r.cfg.Root, r.cfg.Request.Mask())
	return r.tuned.LostWarning()
}
