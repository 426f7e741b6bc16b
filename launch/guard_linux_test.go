package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/session"
)

func init() { treeHelpers["frozenkill"] = frozenKill }

// frozenKill runs, guarded, a command whose child leaves the process
// group and ignores SIGTERM, until the test kills this process.
func frozenKill() int {
	EnableGuard()
	cpu, _ := strconv.Atoi(os.Getenv("COREPIN_CPU"))
	_, err := Run(context.Background(), Config{
		Request: session.Request{CPU: cpu},
		Args:    []string{"sh", "-c", `trap "" TERM; setsid sleep 300 & echo > "$COREPIN_READY"; wait`},
	})
	fmt.Println("the run ended before the test killed corepin:", err)
	return 1
}

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

// runCgroups lists the run cgroups named for pid in every hierarchy.
func runCgroups(pid int) []string {
	dirs, _ := filepath.Glob(fmt.Sprintf("/sys/fs/cgroup/*/corepin-%d-*", pid))
	more, _ := filepath.Glob(fmt.Sprintf("/sys/fs/cgroup/corepin-%d-*", pid))
	return append(dirs, more...)
}

// tagged lists the processes whose environment holds tag.
func tagged(tag string) []int {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	var out []int
	for _, p := range procs {
		if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte(tag+"\x00")) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			out = append(out, pid)
		}
	}
	return out
}

// TestGuardThawsATreeLeftFrozen: a corepin killed between the freezer's
// FROZEN and THAWED, as it ends a tree, would leave the tree frozen for
// good; the guard thaws it, ends it and removes the cgroups. The test
// freezes the run's cgroup itself and kills corepin there: the window,
// held open.
func TestGuardThawsATreeLeftFrozen(t *testing.T) {
	cpu := testcpu.Target(t)
	requireV1Freezer(t, cpu)
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tag := fmt.Sprintf("COREPIN_GUARD_TAG=%d-%s", os.Getpid(), t.Name())
	ready := filepath.Join(dir, "ready")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "COREPIN_LAUNCH_HELPER=frozenkill", tag, "COREPIN_CPU="+strconv.Itoa(cpu), "COREPIN_READY="+ready)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, cmd, ready, &stderr)
	var freezer string
	for _, d := range runCgroups(cmd.Process.Pid) {
		if _, err := os.Stat(filepath.Join(d, "freezer.state")); err == nil {
			freezer = d
		}
	}
	if freezer == "" || !cgroupfs.Freeze(freezer) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("cannot freeze the run's cgroup (%v):\n%s", runCgroups(cmd.Process.Pid), &stderr)
	}
	cmd.Process.Kill()
	cmd.Wait() // and the guard, which holds its stderr until it is done
	cleanWithin(t, tag, cmd.Process.Pid, &stderr)
	if !strings.Contains(stderr.String(), "its guard ended ") {
		t.Errorf("the guard did not say what it ended:\n%s", stderr.String())
	}
}

// waitFile waits until path exists, or fails when cmd has ended first.
func waitFile(t *testing.T, cmd *exec.Cmd, path string, out *bytes.Buffer) {
	t.Helper()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if err := unix.Kill(cmd.Process.Pid, 0); err != nil {
			t.Fatalf("the helper ended before %s:\n%s", path, out)
		}
		if dl, ok := t.Deadline(); ok && time.Until(dl) < 5*time.Second {
			t.Fatalf("gave up waiting for %s:\n%s", path, out)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// cleanWithin fails unless, within 2 s, no process tagged tag runs and no run
// cgroup of pid is left. In an emulated guest (test/machines under TCG),
// where starting a Go program takes tens of times longer, it waits 30 s.
func cleanWithin(t *testing.T, tag string, pid int, out *bytes.Buffer) {
	t.Helper()
	limit := 2 * time.Second
	if accel := os.Getenv("MACHINE_ACCEL"); accel != "" && accel != "kvm" {
		limit = 30 * time.Second
	}
	deadline := time.Now().Add(limit)
	for len(tagged(tag)) > 0 || len(runCgroups(pid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%v after corepin's end, processes %v and cgroups %v are left\n%s", limit, tagged(tag), runCgroups(pid), out)
		}
		time.Sleep(2 * time.Millisecond)
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

// The guard reads a line of any length whole, says what it cannot read
// and goes on, takes only "done" as a normal end, and leaves out a last
// piece without its newline: a write that corepin's death cut short.
func TestGuardReadsItsPipe(t *testing.T) {
	long := "/sys/fs/cgroup/" + strings.Repeat("deep/", 20000) + "corepin-9-1"
	in := (guardMsg{Cgroup: &guardCgroup{Version: 1, Name: "corepin-9-1", Dirs: map[string]string{"cpu": long}}}).line()
	in = append(in, "nonsense\n"...)
	in = append(in, (guardMsg{Group: &guardGroup{PGID: 9, Start: 77}}).line()...)
	for _, c := range []struct {
		tail   string
		done   bool
		groups map[int]uint64
	}{
		{"done\n", true, map[int]uint64{9: 77}},
		{"", false, map[int]uint64{9: 77}},
		{"group 12 56", false, map[int]uint64{9: 77}}, // cut short: not a message
	} {
		g := &guardState{cgroups: map[string]guardCgroup{}, groups: map[int]uint64{}}
		var said bytes.Buffer
		done := g.read(bytes.NewReader(append(bytes.Clone(in), c.tail...)), &said)
		if done != c.done || g.cgroups["corepin-9-1"].Dirs["cpu"] != long || fmt.Sprint(g.groups) != fmt.Sprint(c.groups) {
			t.Errorf("tail %q: done %v, cgroup read %v, groups %v; want done %v, groups %v", c.tail, done, g.cgroups["corepin-9-1"].Dirs["cpu"] == long, g.groups, c.done, c.groups)
		}
		if !strings.Contains(said.String(), `a line it cannot read: "nonsense"`) {
			t.Errorf("tail %q: it said %q", c.tail, said.String())
		}
	}
}

// What a sweep and a guard say never counts nothing as ended: "ended 0
// processes" was said of a run whose tree had ended before its cgroups
// were removed.
func TestEndedWording(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{endedRun(0, []string{"corepin-1-s2-ns3-1"}), "removed its run's cgroups (corepin-1-s2-ns3-1)"},
		{endedRun(2, []string{"c"}), "ended 2 processes of its run and removed its run's cgroups (c)"},
		{endedRun(1, nil), "ended 1 process of its run"},
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
