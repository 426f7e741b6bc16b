package system

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"corepin.dev/corepin/results/evidence"
)

// Tunes stack. Six `run --tune --irqs` started seconds apart on one
// target: the first moves the IRQs off it; the others find them moved
// already and change nothing; then the first ends and puts the IRQs back
// while five others still measure. So a value is counted by every layer
// that relies on it: a layer whose tune would have set a value that
// another layer set first records it too (Entry.Relied: nothing written,
// and the value from before any tune as its old one), and a layer that is
// undone leaves a value that another layer still relies on, handing its
// old value to that layer (see restore). The last layer to go puts it
// back. A layer that stands until `system reset` (a system tune's, Kept)
// counts as any other.

// tune reads the machine, plans req and applies it, with the journal's
// lock held throughout, so that no other tune or reset comes between what
// is read and what is written; the values other layers set that this tune
// would have set too are recorded as relied on.
func (s *Session) tune(ctx context.Context, req evidence.TuneRequest) (*evidence.Facts, *evidence.TuneResult, error) {
	m := s.m
	// What cannot be done, or not by this user, is refused first, before
	// the journal is even looked at; it is planned again under the lock.
	if _, _, err := s.plan(req); err != nil {
		return nil, nil, err
	}
	j, unlock, err := m.lockedJournal(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	f, changes, err := s.plan(req)
	if err != nil {
		return nil, nil, err
	}
	relied, err := s.relied(j, req, changes)
	if err != nil {
		return nil, nil, err
	}
	res, err := s.apply(ctx, j, changes)
	if err != nil {
		return nil, res, err
	}
	if len(relied) > 0 {
		l := j.layer(s.owner, s.command)
		for _, d := range relied {
			l.Entries = append(l.Entries, evidence.Entry{Op: evidence.OpWrite, Path: d.Path, Kind: d.Kind, Old: d.Old, New: d.Value, Relied: true})
		}
		if err := j.save(m.JournalPath()); err != nil {
			return nil, nil, s.rollback(j, res, err)
		}
		res.Relied = relied
	}
	return f, res, nil
}

// plan reads the machine and plans req on it, and refuses a plan whose
// files this user may not write (preflight).
func (s *Session) plan(req evidence.TuneRequest) (*evidence.Facts, []evidence.Change, error) {
	f, err := Read(s.m.Root, req.CPUs)
	if err != nil {
		return nil, nil, err
	}
	changes, err := Plan(f, req)
	if err != nil {
		return nil, nil, err
	}
	return f, changes, s.m.preflight(changes)
}

// rollback puts back what a tune did when recording it failed afterwards.
func (s *Session) rollback(j *Journal, res *evidence.TuneResult, cause error) error {
	for i := range j.Layers {
		if j.Layers[i].Owner == s.owner {
			res.Rollback = s.m.restore(j, i, 0)
		}
	}
	return fmt.Errorf("%w (the tune was put back)", cause)
}

// relied lists the values of req that other layers of j set: the machine
// is read as it was before them (each path that they changed reading as
// the oldest layer's old value), req is planned on that, and each planned
// value that reads as set now, and that this tune does not change itself,
// is one this tune relies on. Its Old is the value before any tune.
func (s *Session) relied(j *Journal, req evidence.TuneRequest, changes []evidence.Change) ([]evidence.Done, error) {
	before := map[string]string{}
	for _, l := range j.Layers {
		if l.Owner == s.owner {
			continue
		}
		for _, e := range l.Entries {
			if _, seen := before[e.Path]; !seen && isWrite(e) {
				before[e.Path] = e.Old
			}
		}
	}
	if len(before) == 0 {
		return nil, nil
	}
	f, err := readAs(s.m.Root, req.CPUs, before)
	if err != nil {
		return nil, err
	}
	wanted, err := Plan(f, req)
	if err != nil {
		return nil, nil // what cannot be planned from before is nothing to rely on
	}
	var out []evidence.Done
	for _, w := range wanted {
		old, changed := before[w.Path]
		if !changed || slices.ContainsFunc(changes, func(c evidence.Change) bool { return c.Path == w.Path }) {
			continue
		}
		now, err := os.ReadFile(s.m.path(w.Path))
		if err != nil || !same(w.Kind, string(now), w.Value) {
			continue
		}
		out = append(out, evidence.Done{Change: w, Old: old, ReadBack: strings.TrimSpace(string(now))})
	}
	return out, nil
}

// isWrite says whether e is a write of a kernel file's value.
func isWrite(e evidence.Entry) bool { return e.Op == evidence.OpWrite || e.Op == "" }

// heldBy returns the entry of another layer than li that still relies on
// the value e of layer li set: one that set the same value, or relies on
// it (Relied), or, in a newer layer, was written on top of it (its old
// value is e's new one). nil when no other layer needs e's value.
func heldBy(j *Journal, li int, e evidence.Entry) *evidence.Entry {
	if !isWrite(e) {
		return nil
	}
	for i := range j.Layers {
		if i == li {
			continue
		}
		for k := range j.Layers[i].Entries {
			h := &j.Layers[i].Entries[k]
			if isWrite(*h) && h.Path == e.Path && (same(h.Kind, h.New, e.New) || i > li && same(h.Kind, h.Old, e.New)) {
				return h
			}
		}
	}
	return nil
}

// handOver leaves e's value in place for h, which needs it: h takes e's
// old value, the one from before e, when it was written on top of e.
func handOver(e evidence.Entry, h *evidence.Entry) {
	if same(h.Kind, h.Old, e.New) && !same(h.Kind, h.New, e.New) {
		h.Old = e.Old
	}
}

// Lost lists the values this tune set or relies on that no longer read
// as it left them, each with what it reads now: a tune undone under the
// run (another process wrote the file, or an older corepin put it back).
func (t *Tuned) Lost() []string {
	if t == nil || t.session == nil || t.Reset != nil {
		return nil
	}
	j, err := t.session.m.loadJournal()
	if err != nil {
		return nil
	}
	var lost []string
	for _, l := range j.Layers {
		if l.Owner != t.session.owner {
			continue
		}
		for _, e := range l.Entries {
			if !isWrite(e) {
				continue
			}
			now, err := os.ReadFile(t.session.m.path(e.Path))
			if err == nil && !same(e.Kind, string(now), e.New) {
				lost = append(lost, fmt.Sprintf("%s reads %s, not %s", e.Path, strings.TrimSpace(string(now)), e.New))
			}
		}
	}
	return lost
}

// LostWarning is the warning of a run whose tune was undone under it; ""
// when every value held.
func (t *Tuned) LostWarning() string {
	lost := t.Lost()
	if len(lost) == 0 {
		return ""
	}
	if len(lost) > 5 {
		lost = append(lost[:5], fmt.Sprintf("and %d more", len(lost)-5))
	}
	return "the tune was lost during the run: " + strings.Join(lost, "; ") + " (another process wrote them, or a corepin that does not count stacked tunes put them back)"
}
