package tree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/internal/testcpu"
)

// requireV1Freezer skips unless a run's cgroup is made on cgroup v1 with a
// freezer, where ending a tree freezes it first.
func requireV1Freezer(t *testing.T, cpu int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a run's cgroup")
	}
	h, err := cgroupfs.Find(fsroot.Host)
	if err != nil {
		t.Skipf("no cgroup hierarchies: %v", err)
	}
	cg, why := newCgroup(h, cpuset.Of(cpu))
	if cg == nil {
		t.Skipf("no run cgroup: %s", why)
	}
	defer cg.Remove()
	if cg.Version != 1 || cg.Dirs["freezer"] == "" {
		t.Skip("needs a cgroup v1 freezer (runs end through cgroup.kill on v2)")
	}
}

// TestSweepEndsADeadRunsTree: a run cgroup named for a corepin that is
// gone, holding a process and a cgroup of the command's own, frozen, is
// thawed, ended and removed; one named for this living process is not
// touched.
func TestSweepEndsADeadRunsTree(t *testing.T) {
	cpu := testcpu.Target(t)
	requireV1Freezer(t, cpu)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	h, err := cgroupfs.Find(fsroot.Host)
	if err != nil {
		t.Fatal(err)
	}
	runCgroup := func(owner cgroupfs.RunMark) (*cgroup, *exec.Cmd) {
		cg, why := newCgroup(h, cpuset.Of(cpu))
		if cg == nil {
			t.Fatal(why)
		}
		// Filled while it is still named for this living process, which
		// no sweep touches: an empty cgroup named for a dead one is what
		// the other packages' corepins remove at their start.
		sleep := exec.Command("sleep", "300")
		if err := sleep.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait(); cg.Remove() })
		for _, d := range cg.SortedDirs() {
			if err := cgroupfs.Write(filepath.Join(d, "cgroup.procs"), strconv.Itoa(sleep.Process.Pid)); err != nil {
				t.Fatal(err)
			}
		}
		// Renamed for its owner: a directory of each hierarchy.
		name := cgroupfs.RunName(owner)
		for ctl, d := range cg.Dirs {
			to := filepath.Join(filepath.Dir(d), name)
			if err := os.Rename(d, to); err != nil {
				t.Skipf("cannot rename a cgroup: %v", err)
			}
			cg.Dirs[ctl] = to
		}
		cg.Name = name
		return cg, sleep
	}
	self := cgroupfs.SelfMark()
	if self.Namespace == 0 {
		t.Skip("cannot read this process's PID namespace (/proc/self/ns/pid)")
	}
	gone := cgroupfs.RunMark{Owner: procfs.Process{PID: dead.Process.Pid, Start: 1}, Namespace: self.Namespace}
	stale, strayProc := runCgroup(gone)
	// From here another corepin's sweep may end the dead run's tree
	// before this test's own does: go test runs other packages at once,
	// and their corepins sweep too.
	skipIfSwept := func() {
		t.Helper()
		if !stale.Exists() {
			t.Skipf("another corepin on this machine swept %s first", stale.Name)
		}
	}
	sweptFirst := func(err error) {
		t.Helper()
		if errors.Is(err, fs.ErrNotExist) {
			skipIfSwept()
		}
		t.Fatal(err)
	}
	sub := filepath.Join(stale.Dirs["freezer"], "own")
	if err := os.Mkdir(sub, 0o755); err != nil {
		sweptFirst(err)
	}
	if err := cgroupfs.Write(filepath.Join(sub, "cgroup.procs"), strconv.Itoa(strayProc.Process.Pid)); err != nil {
		sweptFirst(err)
	}
	if err := cgroupfs.Write(filepath.Join(stale.Dirs["freezer"], "freezer.state"), "FROZEN"); err != nil {
		sweptFirst(err)
	}
	live, liveProc := runCgroup(self)
	// Not a dead corepin's of this namespace: another namespace's
	// (its PID names nobody here), and one without the mark.
	elsewhere, elsewhereProc := runCgroup(cgroupfs.RunMark{Owner: gone.Owner, Namespace: self.Namespace + 1})
	unmarked, unmarkedProc := runCgroup(cgroupfs.RunMark{})
	for ctl, d := range unmarked.Dirs {
		to := filepath.Join(filepath.Dir(d), fmt.Sprintf("corepin-%d-1", dead.Process.Pid))
		if err := os.Rename(d, to); err != nil {
			t.Fatal(err)
		}
		unmarked.Dirs[ctl] = to
	}

	// A command that only reads says what it found and ends nothing.
	var found *Stray
	for _, s := range SweepStale(fsroot.Host, false) {
		if s.Cgroup == stale.Name {
			found = &s
		}
	}
	if found == nil {
		skipIfSwept()
	}
	if found == nil || found.Left != 1 || found.Ended != 0 || unix.Kill(strayProc.Process.Pid, 0) != nil || !stale.Exists() {
		t.Fatalf("a sweep that only reads: %+v; want %s with 1 process left running, and left", found, stale.Name)
	}
	if got := found.String(); !strings.Contains(got, "1 process left by a corepin that was killed still runs in cgroup "+stale.Name) {
		t.Errorf("said %q", got)
	}

	strays := SweepStale(fsroot.Host, true)
	found = nil
	for i := range strays {
		if strays[i].Cgroup == stale.Name {
			found = &strays[i]
		}
	}
	if found == nil {
		skipIfSwept()
	}
	if found == nil || found.Ended != 1 || found.Err != "" {
		t.Fatalf("sweep = %+v, want %s with 1 process ended", strays, stale.Name)
	}
	if want := "ended 1 process left by a corepin that was killed (cgroup " + stale.Name + ")"; found.String() != want {
		t.Errorf("said %q, want %q", found.String(), want)
	}
	strayProc.Wait() // the sweep killed it; this test binary is its parent
	if stale.Exists() {
		t.Errorf("the dead run's cgroups are still there: %v", stale.SortedDirs())
	}
	for _, c := range []struct {
		cg   *cgroup
		proc *exec.Cmd
		what string
	}{{live, liveProc, "the living corepin's"}, {elsewhere, elsewhereProc, "another PID namespace's"}, {unmarked, unmarkedProc, "an unmarked"}} {
		if !c.cg.Exists() || unix.Kill(c.proc.Process.Pid, 0) != nil {
			t.Errorf("the sweep touched %s cgroup %s", c.what, c.cg.Name)
		}
	}
}

// What a sweep says never counts nothing as ended.
func TestStrayWording(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Stray{Cgroup: "c", Ended: 0}.String(), "removed cgroup c left by a corepin that was killed"},
		{Stray{Cgroup: "c", Err: "EBUSY"}.String(), "could not remove cgroup c left by a corepin that was killed; EBUSY"},
		{Stray{Cgroup: "c", Ended: 3}.String(), "ended 3 processes left by a corepin that was killed (cgroup c)"},
	} {
		if c.got != c.want {
			t.Errorf("said %q, want %q", c.got, c.want)
		}
	}
	if got := (Stray{Cgroup: "c", Left: 2}).String(); !strings.HasPrefix(got, "2 processes left by a corepin that was killed still run in cgroup c;") {
		t.Errorf("a sweep that only reads said %q", got)
	}
}
