// Package atomicfile is the one way corepin writes a file: so that no
// reader ever sees half of one, and a power cut never leaves an empty one,
// the content goes to a temporary file in the same folder, which is
// flushed to the disk, renamed over the target, and the folder is flushed
// too, so that the rename itself is on the disk. A failed write leaves the
// old file as it was. Only a regular file (or nothing) is replaced so: a
// character device, a FIFO or a symbolic link is written through in
// place, and any other kind of place is refused (see place.go).
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is one file to write: its path and what writes its content.
type File struct {
	Path  string
	Write func(io.Writer) error
}

// Write writes path through write.
func Write(path string, write func(io.Writer) error) error {
	return WriteFiles(File{path, write})
}

// WriteFiles writes several files as Write does, with one flush of each
// folder after all the renames instead of one per file: a results folder
// saves three files after every run. Each file is replaced whole or not at
// all; when one fails, those before it are already in place.
func WriteFiles(files ...File) error {
	return writeFiles((*os.File).Sync, files)
}

// writeFiles is WriteFiles with the flush of a file or a folder to the
// disk given, so that a test can watch the flushes.
func writeFiles(flush func(*os.File) error, files []File) error {
	dirs := []string{}
	for _, f := range files {
		through, err := writeThrough(f.Path)
		if err != nil {
			return err
		}
		if through {
			if err := writeInPlace(f.Path, f.Write); err != nil {
				return err
			}
			continue
		}
		if err := writeFile(flush, f); err != nil {
			return err
		}
		if dir := filepath.Dir(f.Path); !contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	for _, dir := range dirs {
		if err := syncDir(flush, dir); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes a temporary file beside f.Path, flushes it and renames
// it over f.Path. A refusal of the place (a read-only or full disk, a
// missing folder) is a PlaceError; the content's own error is kept as it
// is.
func writeFile(flush func(*os.File) error, f File) error {
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".*")
	if err != nil {
		return asPlaceError(f.Path, fmt.Errorf("writing %s: %w", f.Path, err))
	}
	defer os.Remove(tmp.Name())
	if err := f.Write(tmp); err != nil {
		tmp.Close()
		return asPlaceError(f.Path, fmt.Errorf("writing %s: %w", f.Path, err))
	}
	// Without the flush, a rename that reaches the disk before the data
	// leaves an empty file after a power cut.
	if err := flush(tmp); err != nil {
		tmp.Close()
		return asPlaceError(f.Path, fmt.Errorf("writing %s: flushing: %w", f.Path, err))
	}
	if err := tmp.Close(); err != nil {
		return asPlaceError(f.Path, fmt.Errorf("writing %s: %w", f.Path, err))
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", f.Path, err)
	}
	if err := os.Rename(tmp.Name(), f.Path); err != nil {
		return asPlaceError(f.Path, fmt.Errorf("writing %s: %w", f.Path, err))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// syncDir flushes a folder, so that a rename in it is on the disk.
func syncDir(flush func(*os.File) error, dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("flushing %s: %w", dir, err)
	}
	defer d.Close()
	if err := flush(d); err != nil {
		return fmt.Errorf("flushing %s: %w", dir, err)
	}
	return nil
}
