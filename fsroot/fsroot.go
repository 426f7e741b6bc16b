// Package fsroot names the folder under which corepin reads the kernel's
// files. Every reader of /proc and /sys in corepin (the topology, the
// probes, the watcher, the sampler, the host facts, the listing of
// corepin's own threads) takes a Root, so that every fact corepin reports
// can be tested on a fixture tree.
package fsroot

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Root is a folder that holds proc/ and sys/: "/" on a live system, a
// fixture tree in tests. The zero Root is the live system.
type Root string

// Host is the live system's root.
const Host Root = "/"

// IsHost reports whether r is the live system.
func (r Root) IsHost() bool { return r == "" || filepath.Clean(string(r)) == "/" }

func (r Root) String() string {
	if r == "" {
		return string(Host)
	}
	return string(r)
}

// Path is the path of a file under the root, the file written as on a live
// system, whole ("/proc/self/status") or in parts ("proc", "self",
// "status").
func (r Root) Path(name ...string) string {
	return filepath.Join(append([]string{r.String()}, name...)...)
}

// ReadFile reads a file under the root (see the function ReadFile).
func (r Root) ReadFile(name string) ([]byte, error) { return ReadFile(r.Path(name)) }

// ReadDir lists a folder under the root.
func (r Root) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(r.Path(name)) }

// Stat describes a file under the root.
func (r Root) Stat(name string) (fs.FileInfo, error) { return os.Stat(r.Path(name)) }

// Glob lists the files under the root that match pattern (written as on a
// live system), as paths under the root.
func (r Root) Glob(pattern string) ([]string, error) { return filepath.Glob(r.Path(pattern)) }
