package cgroupfs

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// makeCpuset makes a group in this process's cgroup of the cpuset
// hierarchy, confined to the first CPU this process may use, or skips.
func makeCpuset(t *testing.T) (*Group, cpuset.Set) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("makes a cgroup: needs root")
	}
	h, err := Find(fsroot.Host)
	if err != nil {
		t.Skip(err)
	}
	m, err := CpusetHierarchy(fsroot.Host)
	if err != nil {
		t.Skip(err)
	}
	ctl := "cpuset"
	if m.Version == 2 {
		ctl = ""
		if ok, _ := h.Delegated(h.OwnDir(m), "cpuset"); !ok {
			t.Skip("cpuset is not delegated to this process's cgroup v2")
		}
	}
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Fatal(err)
	}
	first := 0
	for !allowed.IsSet(first) {
		first++
	}
	cpus := cpuset.Of(first)
	g, err := Make(Parent{Version: m.Version, Dirs: map[string]string{ctl: h.OwnDir(m)}}, NewRunName(), Limits{CPUs: cpus})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Remove() })
	return g, cpus
}

// A group made with CPUs reads them back, takes a process, lists it, kills
// it and removes itself; its name carries this process's mark.
func TestMakeTakeKillRemove(t *testing.T) {
	g, cpus := makeCpuset(t)
	if !g.CPUs.Equal(cpus) {
		t.Errorf("read back CPUs %s, want %s", g.CPUs, cpus)
	}
	if m, ok := ParseRunName(g.Name); !ok || m != SelfMark() {
		t.Errorf("name %q does not carry this process's mark", g.Name)
	}
	sleep := exec.Command("sleep", "300")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleep.Process.Kill()
	ctl := "cpuset"
	if g.Version == 2 {
		ctl = ""
	}
	if err := g.AddProcess(ctl, sleep.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if got := g.AllProcs(); !slices.Contains(got, sleep.Process.Pid) {
		t.Errorf("the group lists %v, not the process it took, %d", got, sleep.Process.Pid)
	}
	if !g.Holds(fsroot.Host, ctl, sleep.Process.Pid) {
		t.Errorf("the process's own cgroup file does not name the group")
	}
	g.Kill()
	var ee *exec.ExitError
	if err := sleep.Wait(); !errors.As(err, &ee) || ee.ExitCode() != -1 {
		t.Errorf("the process ended with %v, want a signal", err)
	}
	if err := g.Remove(); err != nil || g.Exists() {
		t.Errorf("Remove: %v; still there: %v", err, g.Exists())
	}
}

// A limit the kernel refuses leaves nothing made.
func TestMakeRefusedLeavesNothing(t *testing.T) {
	g, _ := makeCpuset(t)
	g.Remove()
	parent := Parent{Version: g.Version, Dirs: map[string]string{}}
	for ctl, d := range g.Dirs {
		parent.Dirs[ctl] = d[:len(d)-len(g.Name)-1]
	}
	name := NewRunName()
	if _, err := Make(parent, name, Limits{CPUs: cpuset.Of(4095)}); err == nil {
		t.Fatal("a cpuset of CPU 4095 was taken")
	}
	for _, d := range parent.Dirs {
		if _, err := os.Stat(d + "/" + name); err == nil {
			t.Errorf("%s/%s is left", d, name)
		}
	}
}
