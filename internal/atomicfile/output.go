package atomicfile

// An output file of a command is checked before any work, so that what
// the work measures has somewhere to go, and written after it so that
// nothing measured is lost when the write fails.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// CheckWritable checks, before any work, that a file can be written at
// path, by writing a small temporary file beside it (root may write where
// permission bits say no, /proc refuses whatever they say, and a full disk
// still makes an empty file). A character device or FIFO, which is
// written in place (see Write), passes as it is, and so does an empty
// path, which is not asked for; a regular file behind a symbolic link is
// opened for writing without being changed. A place that cannot be
// written is a PlaceError.
func CheckWritable(path string) error {
	if path == "" {
		return nil
	}
	through, err := writeThrough(path)
	if err != nil {
		return err
	}
	if through {
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			return nil
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return asPlaceError(path, fmt.Errorf("cannot write %s: %w", path, err))
		}
		return f.Close()
	}
	return tryWrite(filepath.Dir(path), path)
}

// CheckFolder checks, before any work, that files can be written into
// the folder path, making it if needed; "" passes.
func CheckFolder(path string) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return asPlaceError(path, fmt.Errorf("cannot make %s: %w", path, err))
	}
	return tryWrite(path, path)
}

// probeSize is what tryWrite writes: one page, one block of most disks.
// An empty file takes no block, so only content finds a full disk.
const probeSize = 4096

func tryWrite(dir, what string) error {
	f, err := os.CreateTemp(dir, ".corepin-check-*")
	if err != nil {
		return asPlaceError(what, fmt.Errorf("cannot write %s: %w", what, err))
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, probeSize))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return asPlaceError(what, fmt.Errorf("cannot write %s: %w", what, err))
	}
	return nil
}

// WriteOrKeep writes the file at path through write and, when that fails
// (a disk that filled up during the work, a folder removed meanwhile),
// keeps what it would have held in a new file in $TMPDIR or, failing that
// too, on last when it is not nil: what corepin measured is never lost
// because one file could not be written. The error keeps the first
// failure's errno and says where what (the report, the samples) is.
func WriteOrKeep(path, what string, last io.Writer, write func(io.Writer) error) error {
	err := Write(path, write)
	if err == nil {
		return nil
	}
	kept, kerr := KeepInTemp(path, write)
	switch {
	case kerr == nil:
		return fmt.Errorf("%w; %s is kept in %s instead", err, what, kept)
	case last != nil && write(last) == nil:
		return fmt.Errorf("%w; %s could not be kept in %s either (%v) and is printed on standard output instead", err, what, os.TempDir(), kerr)
	}
	return fmt.Errorf("%w; %s could not be kept in %s either: %v", err, what, os.TempDir(), kerr)
}

// KeepInTemp writes a new file in $TMPDIR, named after path, and returns
// its name; a file it could not finish is removed.
func KeepInTemp(path string, write func(io.Writer) error) (string, error) {
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	f, err := os.CreateTemp("", "corepin-"+strings.TrimSuffix(base, ext)+"-*"+ext)
	if err != nil {
		return "", err
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close())
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
