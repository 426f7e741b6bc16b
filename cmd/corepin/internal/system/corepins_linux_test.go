package system

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
)

func init() {
	// A stand-in for a corepin that measures: it starts a child (its
	// run's tree), says "ready" and waits for its stdin to close.
	helpers["COREPIN_SYSTEM_TEST_RUN"] = func(string) int {
		child := exec.Command("sleep", "600")
		if err := child.Start(); err != nil {
			return 1
		}
		defer child.Process.Kill()
		os.Stdout.WriteString(strconv.Itoa(child.Process.Pid) + "\n")
		bufio.NewReader(os.Stdin).ReadString('\n')
		return 0
	}
	// A process that only waits for its stdin to close: a guard, by its
	// command line, or anything else.
	helpers["COREPIN_SYSTEM_TEST_WAIT"] = func(string) int {
		bufio.NewReader(os.Stdin).ReadString('\n')
		return 0
	}
}

// helper starts the test binary in a role with args, and returns it with
// the first line it printed (its readiness).
func helper(t *testing.T, role string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), role+"=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line := ""
	if role == "COREPIN_SYSTEM_TEST_RUN" {
		line, _ = bufio.NewReader(stdout).ReadString('\n')
	} else {
		// Ready once its command line is its own, not the fork's.
		for !strings.Contains(commandLine(fsroot.Host, cmd.Process.Pid), strings.Join(args, " ")) {
			time.Sleep(time.Millisecond)
		}
	}
	return cmd, strings.TrimSpace(line)
}

func startOf(t *testing.T, pid int) uint64 {
	t.Helper()
	p, err := procfs.Identify(fsroot.Host, pid)
	if err != nil {
		t.Fatal(err)
	}
	return p.Start
}

// A running corepin is known by its guard's command line, by a layer of
// the journal and by a run cgroup named for it, each naming it by PID and
// start time; its child, its guard and its run cgroup's processes belong
// to its run. A guard or a journal layer with another start time names a
// process that is not that corepin, and another process is no run's.
func TestFindCorepins(t *testing.T) {
	run, child := helper(t, "COREPIN_SYSTEM_TEST_RUN")
	childPID, _ := strconv.Atoi(child)
	pid := run.Process.Pid
	guard, _ := helper(t, "COREPIN_SYSTEM_TEST_WAIT", GuardArg, strconv.Itoa(pid), strconv.FormatUint(startOf(t, pid), 10))
	// A guard of a corepin that ended, whose PID runs something else now.
	other, _ := helper(t, "COREPIN_SYSTEM_TEST_WAIT", "other")
	decoy, _ := helper(t, "COREPIN_SYSTEM_TEST_WAIT", GuardArg, strconv.Itoa(other.Process.Pid), strconv.FormatUint(startOf(t, other.Process.Pid)+1, 10))
	// A corepin known by the journal alone, and a layer of one that ended.
	tuned, _ := helper(t, "COREPIN_SYSTEM_TEST_WAIT", "tuned")
	j := &Journal{Layers: []Layer{
		{Owner: Owner{PID: tuned.Process.Pid, Start: startOf(t, tuned.Process.Pid)}},
		{Owner: Owner{PID: other.Process.Pid, Start: startOf(t, other.Process.Pid) + 1}},
	}}
	// A corepin known by its run cgroup, in a hierarchy of plain folders,
	// with a process in a cgroup nested in it.
	mount := t.TempDir()
	cg, _ := helper(t, "COREPIN_SYSTEM_TEST_WAIT", "cgroup")
	inside, _ := helper(t, "COREPIN_SYSTEM_TEST_WAIT", "inside")
	mark, err := cgroupfs.MarkOf(fsroot.Host, cg.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	nestedDir := filepath.Join(mount, "user.slice", "corepin-"+mark.String()+"-3", "inner")
	// The same PID in another PID namespace's mark, and an older
	// corepin's unmarked name, are no run of this one's.
	elsewhere := mark
	elsewhere.Namespace++
	for _, d := range []string{"corepin-" + elsewhere.String() + "-1", "corepin-" + strconv.Itoa(other.Process.Pid) + "-1"} {
		os.MkdirAll(filepath.Join(mount, d), 0o755)
		os.WriteFile(filepath.Join(mount, d, "cgroup.procs"), []byte(strconv.Itoa(other.Process.Pid)+"\n"), 0o644)
	}
	if err := os.MkdirAll(nestedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(nestedDir, "cgroup.procs"), []byte(strconv.Itoa(inside.Process.Pid)+"\n"), 0o644)
	// A shield's cgroup is no run's.
	os.Mkdir(filepath.Join(mount, "corepin-shield-"+strconv.Itoa(other.Process.Pid)), 0o755)

	runs := findCorepins(fsroot.Host, mount, j)
	byPID := map[int]*evidence.CorepinRun{}
	for _, r := range runs.runs {
		byPID[r.PID] = r
	}
	want := map[int]struct {
		how  string
		pids []int
	}{
		pid:               {"its guard", []int{pid, childPID, guard.Process.Pid}},
		tuned.Process.Pid: {"the journal", []int{tuned.Process.Pid}},
		cg.Process.Pid:    {"its run cgroup", []int{cg.Process.Pid, inside.Process.Pid}},
	}
	for p, w := range want {
		r := byPID[p]
		if r == nil {
			t.Errorf("corepin %d (found by %s) is not found", p, w.how)
			continue
		}
		if !slices.Equal(r.How, []string{w.how}) {
			t.Errorf("corepin %d found by %v, want %s", p, r.How, w.how)
		}
		slices.Sort(w.pids)
		if !slices.Equal(runs.pids[r], w.pids) || r.Processes != len(w.pids) {
			t.Errorf("corepin %d's run: %v (%d), want %v", p, runs.pids[r], r.Processes, w.pids)
		}
	}
	for _, p := range []int{other.Process.Pid, decoy.Process.Pid} {
		if r := runs.run(p); r != nil {
			t.Errorf("process %d is taken for a part of corepin %d's run", p, r.PID)
		}
	}
	if !runs.holds(nestedDir) || runs.holds(mount) || runs.holds(filepath.Join(mount, "user.slice")) {
		t.Errorf("the run cgroups are %v", runs.dirs)
	}
	if got := byPID[pid].Command; !strings.Contains(got, ".test") {
		t.Errorf("command line %q", got)
	}
	// The shield's own corepin is no run to leave in place: its other
	// descendants leave the target as everything does.
	runs.drop(byPID[cg.Process.Pid])
	if runs.run(inside.Process.Pid) != nil || runs.run(cg.Process.Pid) != nil || runs.holds(nestedDir) ||
		slices.ContainsFunc(runs.runs, func(r *evidence.CorepinRun) bool { return r.PID == cg.Process.Pid }) {
		t.Errorf("a dropped run is still there: %v, %v", runs.runs, runs.dirs)
	}
}
