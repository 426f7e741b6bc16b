package tree

import (
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes corepin the child subreaper of everything it
// starts (PR_SET_CHILD_SUBREAPER): a descendant whose parent exits is
// reparented to corepin instead of init, so it stays in the tree the
// watcher follows and corepin ends and reaps it. The attribute is the
// process's, set once and kept: corepin reaps whatever of its runs it
// inherits.
var becomeSubreaper = sync.OnceValue(func() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("becoming the child subreaper: %w", err)
	}
	return nil
})

// reap collects the exit status of pid, an orphan of the run that was
// reparented to corepin, if it has ended; it reports whether it had, and
// the CPU time it and the children it waited for used.
func reap(pid int) (cpu time.Duration, ok bool) {
	var ws unix.WaitStatus
	var ru unix.Rusage
	got, err := unix.Wait4(pid, &ws, unix.WNOHANG, &ru)
	if err != nil || got != pid {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
