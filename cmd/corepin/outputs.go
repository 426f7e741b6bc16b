package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkWritable checks, before any work, that a file can be written at
// path, by writing an empty temporary file beside it (root may write where
// permission bits say no, and /proc refuses whatever they say). An empty
// path is not asked for and passes.
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a folder", path)
	}
	return tryWrite(filepath.Dir(path), path)
}

// checkFolder checks, before any work, that files can be written into
// the folder path, making it if needed; "" passes.
func checkFolder(path string) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return fmt.Errorf("cannot make %s: %w", path, err)
	}
	return tryWrite(path, path)
}

func tryWrite(dir, what string) error {
	f, err := os.CreateTemp(dir, ".corepin-check-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", what, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}
