package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/internal/tree"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
)

// treeScript forks a child that ignores SIGTERM and leaves nothing for
// the Go runtime to kill with corepin (it is not the command), then
// writes the readiness marker $COREPIN_READY.
const treeScript = `trap "" TERM; sleep 300 & echo > "$COREPIN_READY"; wait`

// startGuarded starts corepin exec of treeScript as a process, tagged,
// and waits for the marker. It skips without root, which a run's cgroup
// needs.
func startGuarded(t *testing.T) (cmd *processUnderTest) {
	return startGuardedCommand(t, "exec", "-q", "--", "sh", "-c", treeScript)
}

// startGuardedCommand starts corepin with args, a command whose work
// runs treeScript, as startGuarded does.
func startGuardedCommand(t *testing.T, args ...string) (cmd *processUnderTest) {
	t.Helper()
	requireExec(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root for a run's cgroup")
	}
	ready := filepath.Join(t.TempDir(), "ready")
	p := &processUnderTest{tag: fmt.Sprintf("COREPIN_GUARD_TAG=%d-%s", os.Getpid(), t.Name())}
	p.Cmd = corepinProcess(t, args...)
	p.Env = append(p.Env, p.tag, "COREPIN_READY="+ready)
	// A file, not a pipe: a stray that holds the output open must not
	// hold the test's Wait too.
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	p.file = out
	p.Stdout, p.Stderr = out, out
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Process.Kill()
		p.Wait()
	})
	waitFor(t, "the command's readiness marker", func() bool {
		_, err := os.Stat(ready)
		return err == nil
	})
	return p
}

// needsRunCgroup skips a test of what the guard does with a run's
// cgroup where a run gets none (no cgroup mounted, as in the nocgroup
// guest): the process group holds the tree there.
func needsRunCgroup(t *testing.T) {
	t.Helper()
	if m, why := tree.Containment(fsroot.Host); m == launch.MechanismProcessGroup {
		t.Skipf("a run here has no cgroup for the guard to remove or name: %s", why)
	}
}

type processUnderTest struct {
	*exec.Cmd
	tag  string
	file *os.File
}

// output is what corepin and its guard wrote so far.
func (p *processUnderTest) output() string {
	data, _ := os.ReadFile(p.file.Name())
	return string(data)
}

// runCgroupsOf lists the run cgroups named for pid.
func runCgroupsOf(pid int) []string {
	dirs, _ := filepath.Glob(fmt.Sprintf("/sys/fs/cgroup/*/corepin-%d-*", pid))
	more, _ := filepath.Glob(fmt.Sprintf("/sys/fs/cgroup/corepin-%d-*", pid))
	return append(dirs, more...)
}

// cleanWithin fails unless, within 2 s of since, nothing tagged runs and
// no cgroup of the corepin is left.
func (p *processUnderTest) cleanWithin(t *testing.T, since time.Time) {
	t.Helper()
	for taggedProcesses(p.tag) > 0 || len(runCgroupsOf(p.Process.Pid)) > 0 {
		if time.Since(since) > 2*time.Second {
			t.Fatalf("2 s after the signal, %d processes of the run and cgroups %v are left\n%s", taggedProcesses(p.tag), runCgroupsOf(p.Process.Pid), p.output())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestGuardSIGKILL: corepin killed with SIGKILL in the middle of an exec
// leaves nothing of the run: its guard ends the tree and removes the
// cgroups, and says so. Until then every thread of the guard waits at
// nice 19, out of the way of corepin's own start.
func TestGuardSIGKILL(t *testing.T) {
	needsRunCgroup(t)
	p := startGuarded(t)
	guard := guardOf(t, p.Process.Pid)
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", guard))
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		if nice, err := sched.GetNice(tid); err == nil && nice != 19 {
			t.Errorf("the guard's thread %d is at nice %d, want 19", tid, nice)
		}
	}
	if len(tasks) == 0 {
		t.Error("the guard has no threads to read")
	}
	at := time.Now()
	p.Process.Signal(syscall.SIGKILL)
	p.Wait()
	p.cleanWithin(t, at) // the guard too, which is tagged as the run is
	// The command itself may die of its parent-death signal before the
	// guard comes to it, or not: 1 or 2 processes, the child always.
	if !regexp.MustCompile(`its guard ended [12] process(es)? of its run and removed its run.s cgroups`).MatchString(p.output()) {
		t.Errorf("the guard did not say what it did:\n%s", p.output())
	}
}

// TestGuardSIGKILLOfARun: corepin killed with SIGKILL in the middle of a
// suite's run, whose benchmark forks a child that ignores SIGTERM: within
// 2 s nothing of the tree runs and no cgroup of the run is left, and the
// results folder says the run crashed and what the guard ended.
func TestGuardSIGKILLOfARun(t *testing.T) {
	needsRunCgroup(t)
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.toml")
	toml := fmt.Sprintf("[[benchmark]]\nname = \"tree\"\ncmd = \"sh\"\nargs = [\"-c\", %q]\n", treeScript)
	if err := os.WriteFile(suite, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	// --allow-sharing: the run is killed before any verdict.
	p := startGuardedCommand(t, "run", suite, "--runs", "1", "--warmup", "0", "--allow-sharing", "-q", "--out", out)
	at := time.Now()
	p.Process.Signal(syscall.SIGKILL)
	p.Wait()
	p.cleanWithin(t, at)
	folders, _ := filepath.Glob(filepath.Join(out, "*", "run.json"))
	if len(folders) != 1 {
		t.Fatalf("results folders %v, want one\n%s", folders, p.output())
	}
	// The guard writes its line after the tree is gone and its cgroups
	// removed (30 s: an emulated guest starts a Go program slowly).
	var run *results.Run
	var line string
	for deadline := time.Now().Add(30 * time.Second); line == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if run, _ = results.Load(filepath.Dir(folders[0])); run == nil {
			continue
		}
		for _, w := range run.Warnings {
			if strings.Contains(w.Text, "ended without finishing") {
				line = w.Text
			}
		}
	}
	t.Logf("run.json: %q", line)
	switch {
	case line == "":
		t.Fatalf("30 s after the SIGKILL run.json has no line of the guard\n%s", p.output())
	case !strings.Contains(line, "its guard ended"):
		// go test runs other packages at once, and their corepins sweep a
		// dead corepin's cgroups too: one of them came first.
		t.Skipf("another corepin on this machine ended the tree first; the guard said %q", line)
	case run.State != results.StateCrashed:
		t.Errorf("state %q, want %q", run.State, results.StateCrashed)
	}
}

// TestGuardSIGQUIT: SIGQUIT ends corepin as SIGTERM does, 128+3 and no
// stack dump, with the tree ended and the cgroups removed. Not in
// parallel: with it out of the guard tests' order, TestGuardKilledFirst
// found its tree gone before any sweep in 3 of 4 runs of the package.
func TestGuardSIGQUIT(t *testing.T) {
	p := startGuarded(t)
	p.Process.Signal(syscall.SIGQUIT)
	p.Wait() // corepin ends the tree itself: SIGQUIT, then SIGKILL after the grace
	at := time.Now()
	if code := p.ProcessState.ExitCode(); code != 128+int(syscall.SIGQUIT) {
		t.Errorf("exit %d, want %d\n%s", code, 128+int(syscall.SIGQUIT), p.output())
	}
	noStackTrace(t, "corepin exec", p.output())
	p.cleanWithin(t, at)
}

// TestGuardKilledFirst: with its guard killed first, a corepin killed
// with SIGKILL leaves its tree running; the next corepin command that
// only reads (version) says so and leaves it, the next that runs work
// (exec) ends it and says so. Not in parallel: any other corepin's
// command would sweep the tree first.
func TestGuardKilledFirst(t *testing.T) {
	needsRunCgroup(t)
	p := startGuarded(t)
	guard := guardOf(t, p.Process.Pid)
	unix.Kill(guard, unix.SIGKILL)
	waitFor(t, "the guard to die", func() bool {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", guard))
		return err != nil || strings.Contains(string(data), ") Z ")
	})
	p.Process.Signal(syscall.SIGKILL)
	p.Wait()
	if taggedProcesses(p.tag) == 0 {
		t.Fatal("nothing of the run was left to sweep: the test proves nothing")
	}
	name := filepath.Base(runCgroupsOf(p.Process.Pid)[0])
	// go test runs other packages at once, and their corepins sweep too:
	// one of them may end the tree before these commands come.
	sweptElsewhere := func(out []byte) {
		t.Helper()
		if taggedProcesses(p.tag) == 0 {
			t.Skipf("another corepin on this machine ended the tree first; the next command said:\n%s", out)
		}
	}
	out, err := corepinProcess(t, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("corepin version: %v\n%s", err, out)
	}
	if want := "corepin: 1 process left by a corepin that was killed still runs in cgroup " + name; !strings.Contains(string(out), want) {
		sweptElsewhere(out)
		t.Errorf("corepin version said:\n%s\nwant %q", out, want)
	}
	if taggedProcesses(p.tag) == 0 {
		t.Fatalf("corepin version, which only reads, ended the tree:\n%s", out)
	}
	out, err = corepinProcess(t, "exec", "-q", "--", "true").CombinedOutput()
	if err != nil {
		t.Fatalf("corepin exec -- true: %v\n%s", err, out)
	}
	if want := "corepin: ended 1 process left by a corepin that was killed (cgroup " + name + ")"; !strings.Contains(string(out), want) {
		sweptElsewhere(out)
		t.Errorf("corepin exec said:\n%s\nwant %q, and the tree is still there", out, want)
	}
	p.cleanWithin(t, time.Now())
}

// guardOf finds the guard among corepin's children.
func guardOf(t *testing.T, pid int) int {
	t.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, c := range strings.Fields(string(data)) {
			cmdline, _ := os.ReadFile("/proc/" + c + "/cmdline")
			if bytes.Contains(cmdline, []byte("__corepin-guard")) {
				n, _ := strconv.Atoi(c)
				return n
			}
		}
	}
	t.Fatal("corepin started no guard")
	return 0
}

// A corepin that may not lower a nice value again starts its guard at its
// own nice value: at nice 19 the guard could not go back to 0 to clean up.
func TestGuardOfAnUnprivilegedCorepinKeepsItsNice(t *testing.T) {
	requireExec(t)
	dir := nobody.Dir(t)
	ready := filepath.Join(dir, "ready")
	cmd := nobody.Command(t, nobody.Executable(t), "exec", "-q", "--", "sh", "-c", `echo > "$COREPIN_READY"; exec sleep 300`)
	cmd.Env = append(os.Environ(), "COREPIN_AS_CLI=1", "COREPIN_READY="+ready)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		cmd.Wait()
		close(ended)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-ended
	})
	waitFor(t, "the command's readiness marker", func() bool {
		select {
		case <-ended:
			t.Fatalf("corepin exec as nobody ended before its command was ready: %v\n%s", cmd.ProcessState, out.String())
		default:
		}
		_, err := os.Stat(ready)
		return err == nil
	})
	own, err := sched.GetNice(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	guard := guardOf(t, cmd.Process.Pid)
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", guard))
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		if nice, err := sched.GetNice(tid); err == nil && nice != own {
			t.Errorf("the guard's thread %d is at nice %d, corepin's at %d", tid, nice, own)
		}
	}
	if len(tasks) == 0 {
		t.Error("the guard has no threads to read")
	}
}
