package watch

import (
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// taskFiles are a followed thread's /proc files, kept open: a pread on an
// open file costs a fraction of an open, read and close, and an open file
// keeps naming the thread it was opened for, never a later thread that
// reuses the TID (its reads fail with ESRCH once the thread is gone).
type taskFiles struct {
	stat, schedstat, sched int // -1 where the file could not be opened
}

func openTask(dir string, tid int) *taskFiles {
	path := filepath.Join(dir, strconv.Itoa(tid))
	open := func(name string) int {
		fd, err := unix.Open(filepath.Join(path, name), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1
		}
		return fd
	}
	return &taskFiles{stat: open("stat"), schedstat: open("schedstat"), sched: open("sched")}
}

// read reads the whole of one of the files into buf.
func (f *taskFiles) read(fd int, buf []byte) ([]byte, error) {
	if fd < 0 {
		return nil, unix.ENOENT
	}
	n, err := unix.Pread(fd, buf, 0)
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

func (f *taskFiles) close() {
	for _, fd := range []int{f.stat, f.schedstat, f.sched} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	f.stat, f.schedstat, f.sched = -1, -1, -1
}
