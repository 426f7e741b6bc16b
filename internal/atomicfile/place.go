package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// What a path named as an output holds decides how it is written. A rename
// replaces whatever the name pointed to: over /dev/null it leaves a
// regular file where the device was (and every program that writes to
// /dev/null then fills it, or is refused), over a FIFO it cuts off its
// reader, over a symbolic link it breaks the link. So only a regular file,
// or nothing, is replaced; a character device, a FIFO or a symbolic link
// (to one of those or to a regular file) is written through, in place;
// anything else is refused before anything is written.

// A PlaceError is an output place that cannot be written: a folder, a
// socket, a block device, a symbolic link to nothing, a FIFO that nobody
// reads, or a place the kernel refuses (read-only, full, not permitted,
// in a folder that is not there). It is the command line's fault, not
// the work's: corepin exits 2.
type PlaceError struct {
	Path string
	Err  error
}

// Error is the refusal as its maker said it, the path included.
func (e *PlaceError) Error() string { return e.Err.Error() }

func (e *PlaceError) Unwrap() error { return e.Err }

// placeErrnos are the refusals that say the place is wrong, not the
// content.
var placeErrnos = []unix.Errno{unix.EROFS, unix.ENOSPC, unix.EDQUOT, unix.EACCES, unix.EPERM, unix.ENOENT, unix.ENOTDIR, unix.EISDIR, unix.ENXIO, unix.ENAMETOOLONG, unix.ELOOP}

// asPlaceError makes err, which names path, a PlaceError when the
// kernel's refusal says the place is wrong; any other error is returned
// as it is.
func asPlaceError(path string, err error) error {
	var pe *PlaceError
	if err == nil || errors.As(err, &pe) {
		return err
	}
	for _, en := range placeErrnos {
		if errors.Is(err, en) {
			return &PlaceError{Path: path, Err: err}
		}
	}
	return err
}

// writeThrough says whether path is written in place rather than
// replaced, and refuses a place that is neither.
func writeThrough(path string) (bool, error) {
	lst, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, asPlaceError(path, fmt.Errorf("cannot write %s: %w", path, err))
	}
	st := lst
	if lst.Mode()&fs.ModeSymlink != 0 {
		if st, err = os.Stat(path); err != nil {
			return false, &PlaceError{Path: path, Err: fmt.Errorf("cannot write %s: a symbolic link to nothing that can be written: %w", path, err)}
		}
	}
	m := st.Mode()
	switch {
	case m.IsRegular():
		return lst.Mode()&fs.ModeSymlink != 0, nil
	case m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0:
		return true, nil
	case m.IsDir():
		return false, &PlaceError{Path: path, Err: fmt.Errorf("cannot write %s: it is a folder", path)}
	}
	return false, &PlaceError{Path: path, Err: fmt.Errorf("cannot write %s: it is a %s, which corepin neither replaces nor writes into", path, kindName(m))}
}

// kindName names a file type for a message.
func kindName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "file of type " + m.Type().String()
}

// openThrough opens path, which writeThrough accepted, to be written in
// place: a regular file behind a symbolic link is emptied first; a FIFO
// is opened without waiting for a reader (a FIFO nobody reads is refused:
// the wait would hang corepin for good, deaf to its signals).
func openThrough(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|unix.O_NONBLOCK, 0)
	if errors.Is(err, unix.ENXIO) {
		return nil, &PlaceError{Path: path, Err: fmt.Errorf("cannot write %s: it is a FIFO that no process reads", path)}
	}
	if err != nil {
		return nil, asPlaceError(path, fmt.Errorf("cannot write %s: %w", path, err))
	}
	st, err := f.Stat()
	if err == nil && st.Mode().IsRegular() {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, asPlaceError(path, fmt.Errorf("cannot write %s: %w", path, err))
	}
	return f, nil
}

// writeInPlace writes path through write, in place (see openThrough).
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := openThrough(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return asPlaceError(path, fmt.Errorf("writing %s: %w", path, err))
	}
	return nil
}
