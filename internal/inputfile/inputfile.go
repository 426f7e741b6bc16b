// Package inputfile opens the files a person names as corepin's input (a
// suite file, a results folder's run.json and journal, a check's expected
// output, another tool's result file) so that the open never waits and
// only a regular file is read. open(2) of a FIFO for reading waits for a
// writer, in the kernel, where no signal that Go catches ends it: `corepin
// run f.toml` with f.toml a FIFO hung for good, deaf to Ctrl-C. So the
// file is opened with O_NONBLOCK, which returns at once whatever it is,
// and fstat(2) then says what it is: anything but a regular file is
// refused (a device reads forever or never, a FIFO is gone once read).
package inputfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is an input that is not a regular file: the command
// line's fault, corepin exits 2.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file but a %s: corepin reads its input only from regular files", e.Path, kind(e.Mode))
}

// kind names a file type for a message.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "file of type " + m.Type().String()
}

// Open opens path for reading, without waiting, and only when it is a
// regular file (through a symbolic link or not).
func Open(path string) (*os.File, error) {
	return regular(os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0))
}

// OpenIn opens name in root for reading as Open does: never outside root
// (os.Root), without waiting, and only a regular file.
func OpenIn(root *os.Root, name string) (*os.File, error) {
	return regular(root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0))
}

// regular keeps f when it is a regular file.
func regular(f *os.File, err error) (*os.File, error) {
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: f.Name(), Mode: st.Mode()}
	}
	return f, nil
}
