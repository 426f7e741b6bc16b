package main

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// checkWritable checks, before any work, that a file can be written at
// path: its folder exists and may be written, and path is not a folder.
// An empty path is not asked for and passes.
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a folder", path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("cannot write %s: %s is not a folder", path, dir)
	}
	if err := unix.Access(dir, unix.W_OK); err != nil {
		return fmt.Errorf("cannot write %s: %s: %w", path, dir, err)
	}
	return nil
}

// checkFolder checks, before any work, that a folder can be made or
// written at path; "" passes.
func checkFolder(path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s is not a folder", path)
		}
		if err := unix.Access(path, unix.W_OK); err != nil {
			return fmt.Errorf("cannot write into %s: %w", path, err)
		}
		return nil
	}
	// The nearest folder that exists must be writable to make it.
	parent := filepath.Dir(filepath.Clean(path))
	for {
		if st, err := os.Stat(parent); err == nil {
			if !st.IsDir() {
				return fmt.Errorf("cannot make %s: %s is not a folder", path, parent)
			}
			if err := unix.Access(parent, unix.W_OK); err != nil {
				return fmt.Errorf("cannot make %s: %s: %w", path, parent, err)
			}
			return nil
		}
		next := filepath.Dir(parent)
		if next == parent {
			return fmt.Errorf("cannot make %s", path)
		}
		parent = next
	}
}
