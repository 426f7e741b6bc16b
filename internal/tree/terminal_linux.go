package tree

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// foreground hands the terminal to the command's process group when the
// command reads corepin's terminal and corepin has it: in a process group
// of its own, the command would otherwise be stopped (SIGTTIN) at its
// first read, and Ctrl-C would reach corepin alone. The returned function
// takes the terminal back once the command has ended.
func foreground(cmd *exec.Cmd, stdin io.Reader) (takeBack func()) {
	f, ok := stdin.(*os.File)
	if !ok {
		return func() {}
	}
	fd := int(f.Fd())
	own := unix.Getpgrp()
	if pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err != nil || pgrp != own {
		return func() {} // not a terminal, or not corepin's to give
	}
	cmd.SysProcAttr.Foreground, cmd.SysProcAttr.Ctty = true, fd
	return func() {
		// corepin is in the background now: taking the terminal back
		// would stop it with SIGTTOU unless that is ignored meanwhile.
		signal.Ignore(syscall.SIGTTOU)
		defer signal.Reset(syscall.SIGTTOU)
		unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, own)
	}
}
