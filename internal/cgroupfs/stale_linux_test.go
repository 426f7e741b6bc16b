package cgroupfs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
)

// stat writes a fixture /proc/PID/stat.
func stat(t *testing.T, root string, pid int, state string, start uint64) {
	t.Helper()
	os.MkdirAll(filepath.Join(root, "proc", fmt.Sprint(pid)), 0o755)
	line := fmt.Sprintf("%d (corepin) %s 1 %d %d 0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 %d 3133440 386 18446744073709551615 1 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 1 1 1 1 1 1 1 0\n", pid, state, pid, pid, start)
	os.WriteFile(filepath.Join(root, "proc", fmt.Sprint(pid), "stat"), []byte(line), 0o644)
}

// TestStale: on a fixture /proc, a marked run cgroup of this namespace is
// stale when its PID is free, a zombie or another process's (another
// start time); it is kept while its owner runs, and a cgroup of another
// PID namespace, one without the mark and one whose mark names no start
// time or namespace are never stale.
func TestStale(t *testing.T) {
	const ns, otherNS = 4026531836, 4026532999
	mark := func(pid int, start uint64, ns uint64) string {
		return fmt.Sprintf("corepin-%s-1", RunMark{Owner: procfs.Process{PID: pid, Start: start}, Namespace: ns})
	}
	root := t.TempDir()
	home := t.TempDir()
	own := filepath.Join(home, mark(4242, 1800, ns))
	for _, d := range []string{filepath.Base(own), mark(4242, 1800, otherNS), mark(4243, 1800, ns), mark(4242, 0, ns), mark(4242, 1800, 0),
		"corepin-4242-1", "corepin-4243-1", "corepin-shield-4242", "unrelated"} {
		os.Mkdir(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, mark(4244, 1800, ns)), nil, 0o644) // a file, not a cgroup
	stat(t, root, 4243, "S", 1800)                                      // 4243 runs, in another namespace's numbering
	stat(t, root, 4242, "S", 1800)
	if got := Stale(fsroot.Root(root), home, ns); len(got) != 0 {
		t.Errorf("a living owner's cgroup is stale: %v", got)
	}
	stat(t, root, 4242, "Z", 1800)
	if got := Stale(fsroot.Root(root), home, ns); len(got) != 1 || got[0] != own {
		t.Errorf("a zombie owner's cgroups: %v, want only %s", got, own)
	}
	stat(t, root, 4242, "S", 7200) // the PID is another process's now
	if got := Stale(fsroot.Root(root), home, ns); len(got) != 1 || got[0] != own {
		t.Errorf("a reused PID's cgroups: %v, want only %s", got, own)
	}
	os.RemoveAll(filepath.Join(root, "proc", "4242"))
	if got := Stale(fsroot.Root(root), home, ns); len(got) != 1 || got[0] != own {
		t.Errorf("a free PID's cgroups: %v, want only %s", got, own)
	}
	if got := Stale(fsroot.Root(root), home, 0); len(got) != 0 {
		t.Errorf("a sweeper that cannot read its own namespace finds %v", got)
	}
	if got := Stale(fsroot.Root(root), home, otherNS); len(got) != 1 || filepath.Base(got[0]) != mark(4242, 1800, otherNS) {
		t.Errorf("seen from the other namespace: %v, want its own mark's cgroup alone", got)
	}
}

// The live machine: this process's own mark names a living corepin; a
// PID that ended names a gone one; another namespace's mark is never gone.
func TestOwnerGoneLive(t *testing.T) {
	self := SelfMark()
	if self.Namespace == 0 {
		t.Skip("cannot read /proc/self/ns/pid")
	}
	if OwnerGone(fsroot.Host, self, self.Namespace) {
		t.Error("this process is taken for gone")
	}
	other := self
	other.Namespace++
	if OwnerGone(fsroot.Host, other, self.Namespace) {
		t.Error("a mark of another namespace is taken for gone")
	}
	reused := self
	reused.Owner.Start++
	if !OwnerGone(fsroot.Host, reused, self.Namespace) {
		t.Error("this PID with another start time is not taken for gone")
	}
}

// SweepEmpty removes the empty cgroups of a gone corepin's runs and
// bandwidth limits, never a shield's (it outlives its corepin), a living
// corepin's or one that still holds a task.
func TestSweepEmpty(t *testing.T) {
	const ns = 4026531836
	root, dir := t.TempDir(), t.TempDir()
	gone := RunMark{Owner: procfs.Process{PID: 4242, Start: 1800}, Namespace: ns}
	alive := RunMark{Owner: procfs.Process{PID: 4243, Start: 1800}, Namespace: ns}
	stat(t, root, 4243, "S", 1800)
	swept := []string{name(Run, gone), name(Bandwidth, gone)}
	kept := []string{name(Shield, gone), name(Run, alive), name(Bandwidth, alive), "unrelated"}
	busy := name(Run, gone) // a task in it: rmdir refuses, as the file in it stands for
	for _, d := range append(append(append([]string{}, swept...), kept...), busy) {
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, busy, "tasks"), []byte("1\n"), 0o644)
	SweepEmpty(fsroot.Root(root), dir, ns)
	for _, d := range swept {
		if _, err := os.Stat(filepath.Join(dir, d)); err == nil {
			t.Errorf("%s is still there", d)
		}
	}
	for _, d := range append(kept, busy) {
		if _, err := os.Stat(filepath.Join(dir, d)); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}
