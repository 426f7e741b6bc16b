package system

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

// Machine is the machine being tuned: the root its files are under and
// the journal that records every change.
type Machine struct {
	Root fsroot.Root
	// Journal is the journal's path; "" means DefaultJournal under Root.
	Journal string
	// LockTimeout bounds the wait for another process's lock on the
	// journal; 0 means DefaultLockTimeout.
	LockTimeout time.Duration
	// Waiting, when set, is told once that the lock is held by another
	// process (holder is its PID, 0 when unknown) and will be waited for.
	Waiting func(holder int, lock string, timeout time.Duration)
	// ThisBoot accepts a journal written before journals recorded their
	// boot, which is otherwise refused: the user says the machine has not
	// restarted since.
	ThisBoot bool
	// Guard, when set, puts the machine back should this process be
	// killed before its tune is undone (corepin's guard process): TuneFor
	// tells it before the first value changes.
	Guard Guard

	// write writes a kernel file; nil means writeFile. Tests replace it to
	// model a kernel's refusals or to end the process between writes.
	write func(path string, data []byte) error
}

// Guard is told, before a tune, of the machine and journal whose layer of
// this process's it is to put back should this process be killed.
type Guard interface {
	// Tune starts the guard, off the CPUs avoid, and waits until it runs.
	Tune(avoid cpuset.Set, root fsroot.Root, journal string)
}

// JournalPath returns where the journal is kept.
func (m *Machine) JournalPath() string {
	if m.Journal != "" {
		return m.Journal
	}
	return m.Root.Path(DefaultJournal)
}

func (m *Machine) path(rel string) string { return m.Root.Path(rel) }

func (m *Machine) writeFile(path string, data []byte) error {
	if m.write != nil {
		return m.write(path, data)
	}
	return writeFile(path, data)
}

// writeFile writes a sysfs or procfs attribute in one write, as the kernel
// wants it. O_TRUNC is what a shell's redirection does; it matters only for
// regular files (fixtures), which must not keep a longer old tail.
func writeFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ErrNotHeld means a value was written without an error but reads back as
// something else: the kernel clamped or ignored it.
var ErrNotHeld = errors.New("the value did not hold")

// WriteError says which file refused which value, and why; it unwraps to
// the errno (errors.Is(err, unix.EACCES) works) or to ErrNotHeld.
type WriteError struct {
	Path     string // relative to the root
	Value    string
	ReadBack string // what the file held afterwards, when it was read
	Err      error
}

func (e *WriteError) Error() string {
	if errors.Is(e.Err, ErrNotHeld) {
		return fmt.Sprintf("writing %q to %s: it reads back %q", e.Value, e.Path, e.ReadBack)
	}
	return fmt.Sprintf("writing %q to %s: %v", e.Value, e.Path, errno(e.Err))
}

func (e *WriteError) Unwrap() error { return e.Err }

// errno describes an error by its errno name where it has one.
func errno(err error) string {
	var en unix.Errno
	if errors.As(err, &en) {
		return fmt.Sprintf("%s (%s)", en.Error(), unix.ErrnoName(en))
	}
	return err.Error()
}

// errnoName is the name of err's errno ("EIO"), "" when it has none.
func errnoName(err error) string {
	var en unix.Errno
	if errors.As(err, &en) {
		return unix.ErrnoName(en)
	}
	return ""
}

// Session is one process's changes: its layer of the journal.
type Session struct {
	m       *Machine
	owner   Owner
	command string
}

// Session starts (or continues) the running process's layer; command is
// recorded to tell the user later what tuned the machine.
func (m *Machine) Session(command string) *Session {
	return &Session{m: m, owner: self(), command: command}
}

// Apply makes the changes in order. Before each write the old content is
// added to the journal, durably; after it, the value is read back. When a
// change fails (a best-effort one excepted), every change this call made is
// put back at once, and the error names the file and the errno. Nothing is
// written when the caller may not write every file. When ctx ends (a
// signal) during the tune, the changes made are put back in the same way
// and the error wraps ctx's.
func (s *Session) Apply(ctx context.Context, changes []evidence.Change) (*evidence.TuneResult, error) {
	if err := s.m.preflight(changes); err != nil {
		return nil, err
	}
	j, unlock, err := s.m.lockedJournal(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return s.apply(ctx, j, changes)
}

// apply is Apply with the journal's lock held and j read.
func (s *Session) apply(ctx context.Context, j *Journal, changes []evidence.Change) (*evidence.TuneResult, error) {
	m := s.m
	j.layer(s.owner, s.command)
	li := len(j.Layers) - 1
	for i := range j.Layers {
		if j.Layers[i].Owner == s.owner {
			li = i
		}
	}
	from := len(j.Layers[li].Entries)
	res := &evidence.TuneResult{}
	fail := func(err error) (*evidence.TuneResult, error) {
		res.Rollback = m.restore(j, li, from)
		if len(res.Rollback.Failed) > 0 {
			return res, fmt.Errorf("%w; rolling back: %s", err, res.Rollback.Failed[0].Error())
		}
		return res, fmt.Errorf("%w (the %d changes made before were rolled back)", err, len(res.Rollback.Restored))
	}
	for _, c := range changes {
		if err := ctx.Err(); err != nil {
			return fail(&stopped{"stopped before writing " + c.Path, err})
		}
		full := m.path(c.Path)
		old, err := os.ReadFile(full)
		if err != nil {
			return fail(&WriteError{Path: c.Path, Value: c.Value, Err: err})
		}
		if same(c.Kind, string(old), c.Value) {
			continue
		}
		e := evidence.Entry{Op: evidence.OpWrite, Path: c.Path, Kind: c.Kind, Old: string(old), New: c.Value}
		l := &j.Layers[li]
		l.Entries = append(l.Entries, e)
		if err := j.save(m.JournalPath()); err != nil {
			l.Entries = l.Entries[:len(l.Entries)-1]
			return fail(err)
		}
		werr := m.writeFile(full, []byte(c.Value+"\n"))
		now, rerr := os.ReadFile(full)
		if werr == nil && rerr == nil && same(c.Kind, string(now), c.Value) {
			res.Done = append(res.Done, evidence.Done{Change: c, Old: strings.TrimSpace(string(old)), ReadBack: strings.TrimSpace(string(now))})
			continue
		}
		refusedWith := errnoName(werr) // the write's own errno, not the read-back's
		werr = &WriteError{Path: c.Path, Value: c.Value, ReadBack: strings.TrimSpace(string(now)), Err: firstErr(werr, rerr, ErrNotHeld)}
		if rerr == nil && string(now) == string(old) {
			// Refused and unchanged: nothing to put back.
			l.Entries = l.Entries[:len(l.Entries)-1]
			if err := j.save(m.JournalPath()); err != nil {
				return fail(err)
			}
		} else if c.BestEffort {
			// It changed into something else: put this one back now.
			if r := m.restore(j, li, len(l.Entries)-1); len(r.Failed) > 0 {
				return fail(fmt.Errorf("%w; putting it back: %s", werr, r.Failed[0].Error()))
			}
		}
		if c.BestEffort {
			res.Refused = append(res.Refused, evidence.Refusal{Change: c, Error: werr.Error(), Errno: refusedWith})
			continue
		}
		return fail(werr)
	}
	return res, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// preflight refuses, before anything is written, a tune whose files the
// caller may not write, and says which.
func (m *Machine) preflight(changes []evidence.Change) error {
	var denied []string
	var first error
	for _, c := range changes {
		if err := unix.Access(m.path(c.Path), unix.W_OK); err != nil {
			denied = append(denied, c.Path)
			if first == nil {
				first = err
			}
		}
	}
	dir := filepath.Dir(m.JournalPath())
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			if err := unix.Access(d, unix.W_OK); err != nil {
				denied = append(denied, d+" (the journal)")
				if first == nil {
					first = err
				}
			}
			break
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return &PermissionError{Files: denied, Err: first}
}

// PermissionError is a tune refused before it began: the caller may not
// write these files (tuning needs root).
type PermissionError struct {
	Files []string
	Err   error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("tuning needs write access to %d files (%s), e.g. %s; run as root; nothing was changed",
		len(e.Files), errno(e.Err), e.Files[0])
}

func (e *PermissionError) Unwrap() error { return e.Err }

// record adds entries to the session's layer, durably, before the changes
// they describe are made.
func (s *Session) record(entries ...evidence.Entry) error {
	return s.edit(func(l *Layer) { l.Entries = append(l.Entries, entries...) })
}

// forget drops the session's entries for which drop is true: changes
// that were never made.
func (s *Session) forget(drop func(evidence.Entry) bool) error {
	return s.edit(func(l *Layer) { l.Entries = slices.DeleteFunc(l.Entries, drop) })
}

// edit changes the session's layer under the journal's lock and saves
// the journal.
func (s *Session) edit(change func(*Layer)) error {
	j, unlock, err := s.m.lockedJournal(context.Background())
	if err != nil {
		return err
	}
	defer unlock()
	change(j.layer(s.owner, s.command))
	return j.save(s.m.JournalPath())
}

// lockedJournal takes the journal's lock and reads the journal; the
// caller unlocks once it is done with it.
func (m *Machine) lockedJournal(ctx context.Context) (*Journal, func(), error) {
	unlock, err := m.lock(ctx)
	if err != nil {
		return nil, nil, err
	}
	j, err := m.loadJournal()
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return j, unlock, nil
}
