package main

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// readerGone says whether w is a pipe whose reading end has been closed
// (corepin watch PID | head -1, once head has gone), or a socket whose
// peer hung up, without writing to it: poll reports POLLERR for a pipe
// that has no reader left and POLLHUP for such a socket (and for a
// terminal that hung up). A file is never gone.
func readerGone(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	gone := false
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd)}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			gone = fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
		}
	})
	return gone
}
