package launch

import (
	"fmt"
	"sync"

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
// reparented to corepin, if it has ended; it reports whether it had.
func reap(pid int) bool {
	var ws unix.WaitStatus
	got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	return err == nil && got == pid
}
