package system

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
)

// DefaultLockTimeout is how long corepin waits for another process to free
// the journal's lock before it gives up. A tune or a reset holds it for a
// fraction of a second; a lock held for longer is a stuck or hostile
// process, and root's tuning must not hang on it.
const DefaultLockTimeout = 10 * time.Second

// ErrLockTimeout means the journal's lock was not freed in time.
var ErrLockTimeout = errors.New("the journal's lock was not freed in time")

// LockError is a lock corepin did not get: another process held it past
// the timeout (Err is ErrLockTimeout) or a signal ended the wait (Err is
// the context's error).
type LockError struct {
	Path   string // the lock file
	Holder int    // the holder's PID, 0 when unknown
	// Taker is the process that took the lock, when it has ended and
	// Holder inherited the lock from it; 0 otherwise.
	Taker  int
	Waited time.Duration
	Err    error
}

// lockError is the error of a wait for the lock on fd, path, that ended.
func lockError(fd int, path string, waited time.Duration, err error) *LockError {
	holder, taker := lockHolder(fd)
	return &LockError{Path: path, Holder: holder, Taker: taker, Waited: waited, Err: err}
}

func (e *LockError) Error() string {
	who := holderText(e.Holder, e.Taker)
	if errors.Is(e.Err, ErrLockTimeout) {
		return fmt.Sprintf("the journal's lock %s is held by %s and was not freed in %s: another corepin is tuning or resetting, or that process is stuck; wait for it or end it, then try again",
			e.Path, who, e.Waited)
	}
	if errors.Is(e.Err, context.Canceled) {
		return fmt.Sprintf("stopped waiting for the journal's lock %s, held by %s", e.Path, who)
	}
	return fmt.Sprintf("stopped waiting for the journal's lock %s, held by %s: %v", e.Path, who, e.Err)
}

// stopped is the error of work a context's end (a signal) stopped: it
// unwraps to the context's error but does not print it, since "context
// canceled" tells a person nothing that the exit status 128+N does not.
type stopped struct {
	what string
	err  error
}

func (e *stopped) Error() string { return e.what }
func (e *stopped) Unwrap() error { return e.err }

func (e *LockError) Unwrap() error { return e.Err }

// holderText names the lock's holder for a message, and the process it
// inherited the lock from when that one has ended.
func holderText(holder, taker int) string {
	who := "another process"
	if holder > 0 {
		who = describePID(holder)
	}
	if taker > 0 {
		who += fmt.Sprintf(", which inherited it from pid %d, now ended", taker)
	}
	return who
}

// describePID names a process for a message: its PID and command name.
// The process holds a live lock, so it is the live system's whatever the
// machine's root.
func describePID(pid int) string {
	comm, err := fsroot.Host.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil || len(comm) == 0 {
		return fmt.Sprintf("pid %d", pid)
	}
	return fmt.Sprintf("pid %d (%s)", pid, comm[:len(comm)-1])
}

// lockPath is the lock file beside the journal.
func (m *Machine) lockPath() string { return m.JournalPath() + ".lock" }

// lock takes the journal for this process alone, so that two tunes never
// interleave their records. The lock is a file of mode 0600 in the
// journal's folder, not the folder itself: any user may open a folder he
// can read and flock it, and so hang every tune of root's, while a file
// only its owner can open is one only root's corepin can lock. Another
// holder (a corepin that is tuning, or a stuck one) is waited for until
// the machine's LockTimeout, or until ctx ends (a signal), whichever comes
// first; m.Waiting hears of the wait when it begins. With the lock held,
// the temporary files of saves a killed corepin never finished are
// removed: no other process can be writing one.
func (m *Machine) lock(ctx context.Context) (func(), error) {
	dir := filepath.Dir(m.JournalPath())
	if err := makeDir(dir); err != nil {
		return nil, fmt.Errorf("creating the journal's folder: %w", err)
	}
	dfd, err := openTrustedDir(dir)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	path := m.lockPath()
	fd, err := retry(func() (int, error) {
		return unix.Openat(dfd, filepath.Base(path), unix.O_RDONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	})
	if err != nil {
		return nil, fmt.Errorf("locking the journal: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	if err := m.waitLock(ctx, fd, path); err != nil {
		unix.Close(fd)
		return nil, err
	}
	sweepTemps(m.JournalPath())
	return func() { unix.Close(fd) }, nil
}

// waitLock takes the flock on fd, trying again at growing intervals: a
// blocking flock could be ended neither by the timeout nor by a signal
// that the Go runtime catches.
func (m *Machine) waitLock(ctx context.Context, fd int, path string) error {
	timeout := m.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	start := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	pause := time.Millisecond
	for first := true; ; first = false {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return nil
		}
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			return fmt.Errorf("locking the journal: %w", &os.PathError{Op: "flock", Path: path, Err: err})
		}
		if err := ctx.Err(); err != nil {
			return lockError(fd, path, time.Since(start), err)
		}
		if first && m.Waiting != nil {
			holder, _ := lockHolder(fd)
			m.Waiting(holder, path, timeout)
		}
		select {
		case <-ctx.Done():
			return lockError(fd, path, time.Since(start), ctx.Err())
		case <-deadline.C:
			return lockError(fd, path, timeout, ErrLockTimeout)
		case <-time.After(pause):
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// makeDir creates the journal's folder, and its parents, when it is not
// there; the folder itself gets mode 0755 whatever the umask, so that the
// trust check, which refuses a group-writable folder, accepts it.
func makeDir(dir string) error {
	if _, err := os.Lstat(dir); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // the trust check judges what is there
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return os.Chmod(dir, 0o755)
}

// sweepTemps removes the temporary files that saves of the journal at
// path left when their process was killed before the rename.
func sweepTemps(path string) {
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	for _, p := range stale {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			os.Remove(p)
		}
	}
}

// SweepTemps removes the temporary files that saves of the journal at
// path left when their process was killed, if nobody holds the journal's
// lock now. The next tune or reset would remove them too; every corepin
// command calls this, so that a tune killed in its first save, which
// leaves no journal and so nothing to warn of, leaves nothing behind. A
// lock that another process holds, or one this user may not open, leaves
// them to the holder.
func SweepTemps(path string) {
	if stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path))); len(stale) == 0 {
		return
	}
	dfd, err := openTrustedDir(filepath.Dir(path))
	if err != nil {
		return
	}
	defer unix.Close(dfd)
	fd, err := retry(func() (int, error) {
		return unix.Openat(dfd, filepath.Base(path)+".lock", unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return // no lock file: no save of corepin's was ever made here
	}
	defer unix.Close(fd)
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
		sweepTemps(path)
	}
}

// tempPattern is the glob of the journal's temporary files; save makes
// them with os.CreateTemp(dir, tempPrefix(path)+"*").
func tempPattern(path string) string { return tempPrefix(path) + "*" }

func tempPrefix(path string) string { return "." + filepath.Base(path) + "." }

// retry repeats a system call that a signal interrupted.
func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != unix.EINTR {
			return n, err
		}
	}
}
