// Package atomicfile writes files so that no reader ever sees half of one,
// and a power cut never leaves an empty one: the content goes to a
// temporary file in the same folder, which is flushed to the disk, renamed
// over the target, and the folder is flushed too, so that the rename
// itself is on the disk. A failed write leaves the old file as it was.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// fsync flushes a file or a folder to the disk; tests watch the calls.
var fsync = func(f *os.File) error { return f.Sync() }

// Write writes path through write.
func Write(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// Without the flush, a rename that reaches the disk before the data
	// leaves an empty file after a power cut.
	if err := fsync(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: flushing: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return syncDir(dir)
}

// syncDir flushes a folder, so that a rename in it is on the disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("flushing %s: %w", dir, err)
	}
	defer d.Close()
	if err := fsync(d); err != nil {
		return fmt.Errorf("flushing %s: %w", dir, err)
	}
	return nil
}
