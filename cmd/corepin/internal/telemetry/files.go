package telemetry

import (
	"io"
	"os"
	"syscall"
)

// files keeps the files a sampler reads open between samples and re-reads
// them from offset 0: sysfs attributes and /proc/stat render their content
// afresh on every read from 0, and a pread costs a fraction of an
// open-read-close. A file that fails is closed and opened again once, which
// also notices a CPU's files going away and coming back.
type files struct {
	open map[string]*os.File
	buf  []byte
	// checkUnlinked is set under a fixture root: a file removed from a
	// regular file system stays readable through an open descriptor,
	// where a removed sysfs attribute fails the read.
	checkUnlinked bool
}

func newFiles(root string) *files {
	return &files{open: map[string]*os.File{}, buf: make([]byte, 64<<10), checkUnlinked: root != "/"}
}

func unlinked(fd *os.File) bool {
	st, err := fd.Stat()
	if err != nil {
		return true
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && sys.Nlink == 0
}

// read returns the file's content; the slice is valid until the next call.
func (f *files) read(path string) ([]byte, error) {
	if fd, ok := f.open[path]; ok {
		if f.checkUnlinked && unlinked(fd) {
			fd.Close()
			delete(f.open, path)
			return f.read(path)
		}
		if data, err := f.readAt(fd); err == nil {
			return data, nil
		}
		fd.Close()
		delete(f.open, path)
	}
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	data, err := f.readAt(fd)
	if err != nil {
		fd.Close()
		return nil, err
	}
	f.open[path] = fd
	return data, nil
}

func (f *files) readAt(fd *os.File) ([]byte, error) {
	for {
		n, err := fd.ReadAt(f.buf, 0)
		if err != nil && err != io.EOF {
			return nil, err
		}
		if n < len(f.buf) {
			return f.buf[:n], nil
		}
		f.buf = make([]byte, 2*len(f.buf)) // /proc/stat of a large machine
	}
}

func (f *files) closeAll() {
	for p, fd := range f.open {
		fd.Close()
		delete(f.open, p)
	}
}
