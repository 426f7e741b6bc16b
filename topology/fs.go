package topology

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// FileError says which file could not be used and why. It unwraps to the
// underlying error, so errors.Is(err, fs.ErrNotExist) still works.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// reader reads files under a root. It opens paths as they are; the one link
// it reads through, cpuN/cpufreq, is checked by linkInside first, so that a
// fixture tree never reads the host's files by accident.
type reader struct {
	fsroot.Root
	full bool // read caches, NUMA nodes and model names too

	mu       sync.Mutex
	clusters map[int]cpuset.Set // CPU -> the CPUs of its cluster, before ids are given
}

// setCluster keeps the CPUs of cpu's cluster; CPUs are read in parallel.
func (f *reader) setCluster(cpu int, cpus cpuset.Set) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.clusters == nil {
		f.clusters = map[int]cpuset.Set{}
	}
	f.clusters[cpu] = cpus
}

func (f *reader) open(p string) (*os.File, error) { return os.Open(f.Path(p)) }

// linkInside reports whether p, if it is a symbolic link, points to a
// place inside the root. An absolute link in a dump would lead to the
// host's own /sys; it is treated as missing.
func (f *reader) linkInside(p string) bool {
	target, err := os.Readlink(f.Path(p))
	if err != nil {
		return true // not a link (or not there): nothing to check
	}
	if filepath.IsAbs(target) {
		return f.Root.IsHost()
	}
	rel, err := filepath.Rel(string(f.Root), filepath.Join(filepath.Dir(f.Path(p)), target))
	return err == nil && !strings.HasPrefix(rel, "..")
}

// missing reports whether err means the file is not there.
func missing(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// readString returns the trimmed content of a file. A missing file is not an
// error: ok is false and the caller records the fact as unknown.
func (f *reader) readString(p string) (s string, ok bool, err error) {
	data, err := fsroot.ReadFile(f.Path(p))
	if missing(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, &FileError{Path: f.Path(p), Err: err}
	}
	return strings.TrimSpace(string(data)), true, nil
}

// readInt reads a file holding one decimal integer.
func (f *reader) readInt(p string) (*int, error) {
	s, ok, err := f.readString(p)
	if !ok || err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil, &FileError{Path: f.Path(p), Err: fmt.Errorf("want an integer, have %q", clip(s))}
	}
	return &n, nil
}

// readList reads a file holding a CPU list ("0-3,8").
func (f *reader) readList(p string) (cpuset.Set, bool, error) {
	s, ok, err := f.readString(p)
	if !ok || err != nil {
		return cpuset.Set{}, false, err
	}
	set, err := cpuset.Parse(s)
	if err != nil {
		return cpuset.Set{}, false, &FileError{Path: f.Path(p), Err: err}
	}
	return set, true, nil
}

// readMask reads a file holding a hex CPU mask ("ff,ffffffff").
func (f *reader) readMask(p string) (cpuset.Set, bool, error) {
	s, ok, err := f.readString(p)
	if !ok || err != nil {
		return cpuset.Set{}, false, err
	}
	set, err := cpuset.ParseMask(s)
	if err != nil {
		return cpuset.Set{}, false, &FileError{Path: f.Path(p), Err: err}
	}
	return set, true, nil
}

// readListOrMask prefers the "_list" form of a file and falls back to the
// mask form, as older kernels have only the latter.
func (f *reader) readListOrMask(listPath, maskPath string) (cpuset.Set, bool, error) {
	if s, ok, err := f.readList(listPath); ok || err != nil {
		return s, ok, err
	}
	return f.readMask(maskPath)
}

// numbered lists the entries of dir named prefix+N (cpu0, node1, policy4,
// index2) and returns their numbers. It reads only the directory itself and
// follows no link: one real dump has node/node0/memoryN links that loop.
func (f *reader) numbered(dir, prefix string) ([]int, error) {
	d, err := f.open(dir)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, &FileError{Path: f.Path(dir), Err: err}
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, &FileError{Path: f.Path(dir), Err: err}
	}
	var out []int
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil && n >= 0 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
