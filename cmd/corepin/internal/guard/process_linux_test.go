package guard

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/internal/tree"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/session"
)

// The launcher runs on the process's main thread (see launch.Main): the
// test binary, which doubles as it, keeps its main goroutine there.
func init() { runtime.LockOSThread() }

// TestMain lets the test binary be corepin's helpers: the guard, the
// launcher, and a guarded corepin that the tests kill.
func TestMain(m *testing.M) {
	launch.Dispatch(os.Args, launch.Verb{Name: Arg, Main: Main})
	if os.Getenv("COREPIN_GUARD_HELPER") == "frozenkill" {
		os.Exit(frozenKill())
	}
	os.Exit(m.Run())
}

// frozenKill runs, guarded, a command whose child leaves the process
// group and ignores SIGTERM, until the test kills this process.
func frozenKill() int {
	g := New()
	defer g.Dismiss()
	cpu, _ := strconv.Atoi(os.Getenv("COREPIN_CPU"))
	_, err := launch.Run(context.Background(), launch.Config{
		Guard:   g,
		Request: session.Request{CPU: cpu},
		Args:    []string{"sh", "-c", `trap "" TERM; setsid sleep 300 & echo > "$COREPIN_READY"; wait`},
	})
	fmt.Println("the run ended before the test killed corepin:", err)
	return 1
}

// requireV1Freezer skips unless a run's cgroup is made on cgroup v1 with a
// freezer, where ending a tree freezes it first.
func requireV1Freezer(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a run's cgroup")
	}
	if m, why := tree.Containment(fsroot.Host); m != launch.MechanismCgroupV1 {
		t.Skipf("needs a run cgroup of cgroup v1 (runs end through cgroup.kill on v2): %s", why)
	}
	if h, err := cgroupfs.Find(fsroot.Host); err != nil {
		t.Skip(err)
	} else if _, ok := h.V1("freezer"); !ok {
		t.Skip("needs a cgroup v1 freezer")
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
	requireV1Freezer(t)
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tag := fmt.Sprintf("COREPIN_GUARD_TAG=%d-%s", os.Getpid(), t.Name())
	ready := filepath.Join(dir, "ready")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "COREPIN_GUARD_HELPER=frozenkill", tag, "COREPIN_CPU="+strconv.Itoa(cpu), "COREPIN_READY="+ready)
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
	// Another corepin on this machine (go test runs other packages at
	// once) may sweep the dead corepin's run before its guard: the note
	// such a sweep leaves on the cgroup first says so.
	note := make(chan string, 1)
	stop := make(chan struct{})
	go func() { note <- sweptNote(runCgroups(cmd.Process.Pid), stop) }()
	cmd.Process.Kill()
	cmd.Wait() // and the guard, which holds its stderr until it is done
	close(stop)
	cleanWithin(t, tag, cmd.Process.Pid, &stderr)
	if !strings.Contains(stderr.String(), "its guard ended ") {
		if n := <-note; n != "" {
			t.Skipf("another corepin's sweep ended the run before its guard: %s", n)
		}
		t.Errorf("the guard did not say what it ended:\n%s", stderr.String())
	}
}

// sweptNote watches dirs until stop is closed or they are gone, and
// returns the first note a sweep left on one (cgroupfs.Swept).
func sweptNote(dirs []string, stop <-chan struct{}) string {
	for {
		gone := true
		for _, d := range dirs {
			if note := cgroupfs.Swept(d); note != "" {
				return note
			}
			if _, err := os.Stat(d); err == nil {
				gone = false
			}
		}
		select {
		case <-stop:
			return ""
		default:
		}
		if gone {
			return ""
		}
		time.Sleep(100 * time.Microsecond)
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

// The guard reads a line of any length whole, says what it cannot read
// and goes on, takes only "done" as a normal end, and leaves out a last
// piece without its newline: a write that corepin's death cut short.
func TestReadsItsPipe(t *testing.T) {
	long := "/sys/fs/cgroup/" + strings.Repeat("deep/", 20000) + "corepin-9-1"
	in := (msg{Cgroup: &cgroupMsg{Version: 1, Name: "corepin-9-1", Dirs: map[string]string{"cpu": long}}}).line()
	in = append(in, "nonsense\n"...)
	in = append(in, (msg{Group: &groupMsg{PGID: 9, Start: 77}}).line()...)
	for _, c := range []struct {
		tail   string
		done   bool
		groups map[int]uint64
	}{
		{"done\n", true, map[int]uint64{9: 77}},
		{"", false, map[int]uint64{9: 77}},
		{"group 12 56", false, map[int]uint64{9: 77}}, // cut short: not a message
	} {
		g := &state{cgroups: map[string]cgroupMsg{}, groups: map[int]uint64{}}
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

// What the guard says never counts nothing as ended: "ended 0
// processes" was said of a run whose tree had ended before its cgroups
// were removed.
func TestEndedWording(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{endedRun(0, []string{"corepin-1-s2-ns3-1"}), "removed its run's cgroups (corepin-1-s2-ns3-1)"},
		{endedRun(2, []string{"c"}), "ended 2 processes of its run and removed its run's cgroups (c)"},
		{endedRun(1, nil), "ended 1 process of its run"},
	} {
		if c.got != c.want {
			t.Errorf("said %q, want %q", c.got, c.want)
		}
	}
}
