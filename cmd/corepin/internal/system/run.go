package system

import (
	"context"
	"fmt"
	"io"
	"strings"

	"corepin.dev/corepin/results/evidence"
)

// Tuned is a tune made for one run and undone after it.
// Its record (the request, the result, the shield's report and, after
// Undo, the reset) is what run.json keeps.
type Tuned struct {
	evidence.Tuned

	session *Session
	shield  *shield
}

// TuneFor tunes the machine for a run: it reads the facts, plans the
// request, applies it and, when asked, shields the target. On an error
// nothing stays changed. command names the run in the journal. A signal
// (ctx ending) before TuneFor returns is an error too: what was changed is
// put back, so that a Ctrl-C during a tune leaves the machine as it was.
func TuneFor(ctx context.Context, m *Machine, req evidence.TuneRequest, command string) (*Tuned, error) {
	if m.Guard != nil {
		m.Guard.Tune(req.CPUs, m.Root, m.Journal)
	}
	t := &Tuned{Tuned: evidence.Tuned{Request: req}, session: m.Session(command)}
	f, res, err := t.session.tune(ctx, req)
	if err != nil {
		return nil, err
	}
	t.Result = res
	t.Result.Skipped = Skipped(f, req)
	if err := nothingDone(res, req); err != nil {
		if _, rerr := t.session.Reset(); rerr != nil {
			err = fmt.Errorf("%w; clearing its journal: %v", err, rerr)
		}
		return nil, err
	}
	if req.Shield && ctx.Err() == nil {
		if t.shield, t.Shield, err = startShield(m, t.session, req.CPUs); err != nil {
			if _, rerr := t.session.Reset(); rerr != nil {
				err = fmt.Errorf("%w; putting the tune back: %v", err, rerr)
			}
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		err = &stopped{"stopped after tuning", err}
		if uerr := t.Undo(); uerr != nil {
			return nil, fmt.Errorf("%w; putting the tune back: %v", err, uerr)
		}
		return nil, fmt.Errorf("%w (the %d changes made were put back)", err, len(t.Reset.Restored))
	}
	return t, nil
}

// nothingDone is the error of a tune that did nothing it asked for
// because the kernel refused every change (every IRQ asked off the target
// stays); nil when something was done or relied on, when the shield is
// still to come, and when nothing needed changing.
func nothingDone(res *evidence.TuneResult, req evidence.TuneRequest) error {
	if len(res.Refused) == 0 || len(res.Done) > 0 || len(res.Relied) > 0 || req.Shield {
		return nil
	}
	return fmt.Errorf("the tune did nothing: the kernel refused every change it asked for: %s", strings.Join(UnmovedIRQs(res), "; "))
}

// Keep makes the tune stand until `corepin system reset`: a system tune
// that completed. Until then the guard puts it back should corepin be
// killed halfway.
func (t *Tuned) Keep() error {
	return t.session.edit(func(l *Layer) { l.Kept = true })
}

// Undo puts back what the tune changed, shield first; it is safe to call
// more than once and on a nil Tuned.
func (t *Tuned) Undo() error {
	if t == nil || t.Reset != nil {
		return nil
	}
	if t.shield != nil {
		t.shield.finish(t.Shield)
	}
	rep, err := t.session.Reset()
	if rep == nil {
		rep = &evidence.ResetReport{}
	}
	t.Reset = rep
	return err
}

// WritePlan writes what a tune would change, for --dry-run.
func WritePlan(w io.Writer, changes []evidence.Change) {
	if len(changes) == 0 {
		fmt.Fprintln(w, "nothing to change: every value already holds")
		return
	}
	for _, c := range changes {
		note := ""
		if c.BestEffort {
			note = " (if the kernel lets it move)"
		}
		fmt.Fprintf(w, "%s: %s -> %s%s — %s\n", c.Path, evidence.OrNone(c.Was), c.Value, note, c.Why)
	}
}
