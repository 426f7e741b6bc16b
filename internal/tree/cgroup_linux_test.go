package tree

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/internal/testcpu"
)

// TestStaleCgroupsAreSwept: a run cgroup left by a corepin that was
// killed (its PID no longer runs) is removed when the next cgroup is
// made; one named for a process that runs is kept.
func TestStaleCgroupsAreSwept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("makes cgroups: needs root")
	}
	h, err := cgroupfs.Find(fsroot.Host)
	if err != nil {
		t.Skipf("no cgroup hierarchies: %v", err)
	}
	probe, why := newCgroup(h, cpuset.Of(testcpu.Target(t)))
	if probe == nil {
		t.Skipf("no cgroup for a run here: %s", why)
	}
	homes := probe.SortedDirs()
	probe.Remove()
	ns := cgroupfs.SelfMark().Namespace
	parent, err := cgroupfs.MarkOf(fsroot.Host, os.Getppid())
	if err != nil || ns == 0 {
		t.Skipf("cannot read the marks of this process and its parent: %v", err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	var stale, live []string
	for _, d := range homes {
		home := filepath.Dir(d)
		s := filepath.Join(home, fmt.Sprintf("corepin-%s-1", cgroupfs.RunMark{Owner: procfs.Process{PID: gone.Process.Pid, Start: 1}, Namespace: ns}))
		l := filepath.Join(home, fmt.Sprintf("corepin-%s-999999", parent))
		for _, p := range []string{s, l} {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		stale, live = append(stale, s), append(live, l)
	}
	defer func() {
		for _, p := range append(stale, live...) {
			unix.Rmdir(p)
		}
	}()
	swept.Lock()
	swept.dirs = nil // as in a new process
	swept.Unlock()
	cg, why := newCgroup(h, cpuset.Of(testcpu.Target(t)))
	if cg == nil {
		t.Fatalf("no cgroup: %s", why)
	}
	cg.Remove()
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the stale %s is still there", p)
		}
	}
	for _, p := range live {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the live process's %s was removed: %v", p, err)
		}
	}
}
