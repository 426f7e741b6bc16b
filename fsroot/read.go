package fsroot

import (
	"fmt"
	"io/fs"
	"slices"

	"golang.org/x/sys/unix"
)

// maxFile bounds what ReadFile reads: the kernel's files are small, and a
// file that keeps producing (a misnamed device) must not fill the memory.
const maxFile = 16 << 20

// ReadFile reads a kernel file (in /proc, /sys or a cgroup hierarchy)
// whole. It goes around os.File: the kernel's files can be polled, so
// os.ReadFile registers each one with Go's poller, which costs a stat, two
// fcntl and two epoll_ctl calls beside the open, read and close, and, the
// first time, the poller's own epoll instance; and it reads without a stat
// first, since sysfs gives every attribute a size of 4096 whatever it
// holds. The watcher and the sampler read such files on every tick, and a
// start of corepin exec reads dozens of them.
func ReadFile(path string) ([]byte, error) {
	fd, err := retry(func() (int, error) { return unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0) })
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := retry(func() (int, error) { return unix.Read(fd, buf[len(buf):cap(buf)]) })
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) > maxFile {
			return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d MiB", maxFile>>20)}
		}
	}
}

// retry repeats a system call that a signal interrupted.
func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != unix.EINTR {
			return n, err
		}
	}
}
