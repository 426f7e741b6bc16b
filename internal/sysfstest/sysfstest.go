// Package sysfstest unpacks the real machines' sysfs dumps kept in its
// testdata folder (from util-linux's lscpu tests, with lscpu's own output
// beside each as the oracle) for the tests of other packages.
package sysfstest

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Dir returns the folder that holds the dumps and their oracle files,
// found from the working directory as go test sets it (the package's
// folder) up to the module's root, so that a test binary built elsewhere or
// copied into a machine with another root still finds them. The source
// path compiled into the binary is the last resort.
func Dir() string {
	const rel = "internal/sysfstest/testdata/sysfs"
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				if st, err := os.Stat(filepath.Join(dir, rel)); err == nil && st.IsDir() {
					return filepath.Join(dir, rel)
				}
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "sysfs")
}

// Names lists the dumps by name (the tarball's name without .tar.gz).
func Names(tb testing.TB) []string {
	tb.Helper()
	matches, err := filepath.Glob(filepath.Join(Dir(), "*.tar.gz"))
	if err != nil || len(matches) == 0 {
		tb.Fatalf("no sysfs dumps in %s: %v", Dir(), err)
	}
	var names []string
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".tar.gz"))
	}
	return names
}

var (
	mu       sync.Mutex
	cacheDir string
	unpacked = map[string]string{}
)

// Unpack extracts the dump once per test binary and returns its root: the
// folder that holds proc/ and sys/. Callers must not change the tree; a
// package that uses Unpack calls Main from its TestMain to remove it.
func Unpack(tb testing.TB, name string) string {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	if root, ok := unpacked[name]; ok {
		return root
	}
	if cacheDir == "" {
		dir, err := os.MkdirTemp(scratch(), "corepin-sysfs-")
		if err != nil {
			tb.Fatal(err)
		}
		cacheDir = dir
	}
	if err := untar(filepath.Join(Dir(), name+".tar.gz"), cacheDir); err != nil {
		tb.Fatalf("unpacking %s: %v", name, err)
	}
	unpacked[name] = filepath.Join(cacheDir, name)
	return unpacked[name]
}

// scratch prefers a memory file system: creating the dumps' tens of
// thousands of small files on a VM's disk can take a minute.
func scratch() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", "corepin-probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return os.TempDir()
}

// Main runs the tests and removes the unpacked dumps afterwards.
func Main(m *testing.M) {
	code := m.Run()
	if cacheDir != "" {
		os.RemoveAll(cacheDir)
	}
	os.Exit(code)
}

// Oracle returns the text of one of lscpu's output files for a dump, for
// example Oracle(t, "armv7", "lscpu-p-physical-all").
func Oracle(tb testing.TB, name, kind string) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(), name+"."+kind+".txt"))
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

// skipped matches the parts of a dump that corepin never reads; leaving
// them out halves the files to write and keeps the tests quick.
var skipped = regexp.MustCompile(`/cpu[0-9]+/(cpuidle|power|hotplug|microcode)/`)

func untar(path, dst string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if skipped.MatchString(h.Name) {
			continue
		}
		target := filepath.Join(dst, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			err = writeFile(target, tr)
		case tar.TypeSymlink:
			if err = os.MkdirAll(filepath.Dir(target), 0o755); err == nil {
				err = os.Symlink(h.Linkname, target)
			}
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
