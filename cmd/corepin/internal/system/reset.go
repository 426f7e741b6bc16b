package system

import (
	"context"
	"fmt"
	"os"
	"strings"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

// Reset puts back what this session changed, newest change first. It is
// the way back after a signal, so no signal ends its wait for the lock;
// the machine's LockTimeout does.
func (s *Session) Reset() (*evidence.ResetReport, error) {
	return s.m.reset(context.Background(), func(l *Layer) bool { return l.Owner == s.owner })
}

// Reset puts back everything the journal holds, newest layer first, and
// removes the journal once every value came back. The layers of other
// processes that still run (a run with --tune, which resets at its end)
// are left to them and listed in the report. ctx ends the wait for the
// journal's lock; once the lock is held, the reset goes to its end.
func (m *Machine) Reset(ctx context.Context) (*evidence.ResetReport, error) {
	me := self()
	return m.reset(ctx, func(l *Layer) bool { return l.Owner == me || !l.Owner.Alive(fsroot.Host) })
}

// ResetOwner puts back the layer of o alone, unless it stands until a
// reset (Kept, a system tune that completed): the guard's way back for
// the corepin o, killed. Other layers, a killed corepin's whose guard
// died too included, are left to `corepin system reset`.
func (m *Machine) ResetOwner(ctx context.Context, o Owner) (*evidence.ResetReport, error) {
	return m.reset(ctx, func(l *Layer) bool { return l.Owner == o && !l.Kept })
}

func (m *Machine) reset(ctx context.Context, which func(*Layer) bool) (*evidence.ResetReport, error) {
	j, unlock, err := m.lockedJournal(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	all := &evidence.ResetReport{Journal: m.JournalPath()}
	for li := len(j.Layers) - 1; li >= 0; li-- {
		if l := &j.Layers[li]; !which(l) {
			if len(l.Entries) > 0 {
				all.Running = append(all.Running, fmt.Sprintf("`%s` (pid %d, %d changes)", l.Command, l.Owner.PID, len(l.Entries)))
			}
			continue
		}
		r := m.restore(j, li, 0)
		all.Restored = append(all.Restored, r.Restored...)
		all.Failed = append(all.Failed, r.Failed...)
		all.Kept = append(all.Kept, r.Kept...)
	}
	j.dropEmpty()
	if err := j.save(m.JournalPath()); err != nil {
		return all, err
	}
	if len(all.Failed) > 0 {
		var lines []string
		for _, f := range all.Failed {
			lines = append(lines, f.Error())
		}
		return all, fmt.Errorf("%d values could not be put back (the journal %s keeps them): %s", len(all.Failed), all.Journal, strings.Join(lines, "; "))
	}
	return all, nil
}

// restore puts back the entries from index from of layer li, newest first.
// A value the kernel refuses now may be accepted once another one is back
// (a min that must wait for its max), so the refused ones are tried again
// while a pass makes progress. Restored entries leave the journal, which
// is saved after each pass; the others stay.
func (m *Machine) restore(j *Journal, li, from int) *evidence.ResetReport {
	r := &evidence.ResetReport{Journal: m.JournalPath()}
	l := &j.Layers[li]
	entries := l.Entries
	done := make([]bool, len(entries))
	errs := map[int]error{}
	var pending []int
	for i := len(entries) - 1; i >= from; i-- {
		pending = append(pending, i)
	}
	for len(pending) > 0 {
		var again []int
		for _, i := range pending {
			if h := heldBy(j, li, entries[i]); h != nil {
				// Another layer still relies on the value: it stays, and
				// that layer puts it back when it is undone.
				handOver(entries[i], h)
				done[i] = true
				r.Kept = append(r.Kept, entries[i])
				continue
			}
			if err := m.undo(entries[i]); err != nil {
				errs[i] = err
				again = append(again, i)
				continue
			}
			done[i] = true
			r.Restored = append(r.Restored, entries[i])
		}
		var kept []evidence.Entry
		for i, e := range entries {
			if !done[i] {
				kept = append(kept, e)
			}
		}
		l.Entries = kept
		if err := j.save(m.JournalPath()); err != nil {
			r.Failed = append(r.Failed, evidence.RestoreError{Entry: evidence.Entry{Op: evidence.OpWrite, Path: m.JournalPath()}, Err: err.Error(), Cause: err})
			return r
		}
		if len(again) == len(pending) {
			break
		}
		pending = again
	}
	for _, i := range pending {
		r.Failed = append(r.Failed, evidence.RestoreError{Entry: entries[i], Err: errno(errs[i]), Cause: errs[i]})
	}
	return r
}

// undo puts one entry back and verifies it.
func (m *Machine) undo(e evidence.Entry) error {
	switch e.Op {
	case evidence.OpWrite, "":
		full := m.path(e.Path)
		if now, err := os.ReadFile(full); err == nil && string(now) == e.Old {
			return nil
		}
		if err := m.writeFile(full, []byte(e.Old)); err != nil {
			return err
		}
		now, err := os.ReadFile(full)
		if err != nil {
			return err
		}
		if !same(e.Kind, string(now), e.Old) {
			return fmt.Errorf("%w: reads back %q, want %q", ErrNotHeld, strings.TrimSpace(string(now)), strings.TrimSpace(e.Old))
		}
		return nil
	case evidence.OpMkdir:
		return m.undoMkdir(e)
	case evidence.OpMove:
		return m.undoMove(e)
	case evidence.OpAffinity:
		return m.undoAffinity(e)
	case evidence.OpControl:
		return m.undoControl(e)
	}
	return fmt.Errorf("unknown journal operation %q", e.Op)
}
