package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

// requireExec returns the CPU corepin chooses by default, skipping unless
// another CPU is left for corepin's own threads.
func requireExec(t *testing.T) int {
	t.Helper()
	return testcpu.Target(t)
}

// skipUnlessPriorityCanBeRaised skips a test whose run needs a step of the
// default ladder to hold, where this user may raise no priority (the
// shell user of adb shell: no CAP_SYS_NICE, no RLIMIT_NICE).
func skipUnlessPriorityCanBeRaised(t *testing.T) {
	t.Helper()
	if !sched.NiceLowering().Supported && !sched.Realtime().Supported && !sched.Uclamp().Supported {
		t.Skipf("this user may raise no priority (%s): no ladder step can hold", sched.PriorityFacts(fsroot.Host))
	}
}

// skipInShort skips the tests that run whole benchmark suites or
// experiments, which the race detector's -short run leaves out.
func skipInShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a whole suite or experiment; not in -short")
	}
}

func readReport(t *testing.T, path string) launch.Report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep launch.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// starts are the two ways exec starts a command, and the flags that pick
// each; the tests that concern what the command receives run both.
var starts = []struct {
	name  string
	flags []string
}{
	{launch.StartFork, nil},
	{launch.StartLauncher, []string{"--launcher"}},
}

// execArgs is "exec", the start's flags, then args.
func execArgs(flags []string, args ...string) []string {
	return append(append([]string{"exec"}, flags...), args...)
}

// TestExecIndependentReaders checks the command's scheduling with tools
// that know nothing of corepin.
func TestExecIndependentReaders(t *testing.T) {
	cpu := requireExec(t)
	for _, tool := range []string{"taskset", "chrt", "ps"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	script := `grep Cpus_allowed_list /proc/$$/status; taskset -p $$; chrt -p $$; echo "nice $(ps -o ni= -p $$)"`
	sflags := []string{"--cpu", fmt.Sprint(cpu), "-q"}
	wantPolicy := "SCHED_OTHER"
	if sched.Realtime().Supported {
		sflags = append(sflags, "--ladder", "spec", "--realtime")
		wantPolicy = "SCHED_FIFO"
	}
	for _, st := range starts {
		t.Run(st.name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "r.json")
			flags := append(append(append([]string{}, st.flags...), sflags...), "--report", report, "--")
			out, errOut, code := corepin(t, execArgs(flags, "sh", "-c", script)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			mask := cpuset.Of(cpu)
			for _, want := range []string{
				"Cpus_allowed_list:\t" + mask.String(),
				"current affinity mask: " + mask.Mask(),
				"scheduling policy: " + wantPolicy,
			} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if wantPolicy == "SCHED_OTHER" && sched.NiceLowering().Supported && !strings.Contains(out, "nice -20") {
				t.Errorf("nice is not -20:\n%s", out)
			}
			rep := readReport(t, report)
			if rep.Start != st.name {
				t.Errorf("report says start %q, want %q", rep.Start, st.name)
			}
			// Forked, the command is a copy of a corepin thread, which
			// must then be put back; the launcher's thread becomes the
			// command and is never put back.
			if rep.Restore.Done != (st.name == launch.StartFork) || (rep.Restore.Done && !rep.Restore.OK) {
				t.Errorf("%s: restore of the starting thread %+v", st.name, rep.Restore)
			}
		})
	}
}

func TestExecExitCodes(t *testing.T) {
	// Not parallel: an exec run in the test process moves its threads off
	// the target for the run, and a corepin process a parallel test starts
	// meanwhile would inherit that mask and choose its CPUs by it.
	requireExec(t)
	notExec := filepath.Join(t.TempDir(), "data.txt")
	os.WriteFile(notExec, []byte("not a program"), 0o644)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"exec", "-q", "--", "sh", "-c", "exit 7"}, 7, ""},
		{[]string{"exec", "-q", "--", "sh", "-c", "kill -TERM $$"}, 128 + 15, ""},
		{[]string{"exec", "--", "/no/such/program"}, 127, "no such file"},
		{[]string{"exec", "--", notExec}, 126, "permission denied"},
		{[]string{"exec", "--accept", "any+policy=deadline", "--", "true"}, 125, "not accepted"},
		{[]string{"exec", "--cpu", "9999", "--", "true"}, exitUsage, "does not exist"},
		{[]string{"exec"}, exitUsage, "no command given"},
		{[]string{"exec", "--ladder", "spec", "--nice", "3", "--", "true"}, exitUsage, "cannot be combined"},
		{[]string{"exec", "--uclamp", "9:1", "--", "true"}, exitUsage, "min <= max"},
	}
	for _, st := range starts {
		for _, tt := range tests {
			args := append(append([]string{tt.args[0]}, st.flags...), tt.args[1:]...)
			_, errOut, code := corepin(t, args...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Errorf("corepin %s: exit %d, stderr %q; want %d and %q", strings.Join(args, " "), code, errOut, tt.code, tt.msg)
			}
		}
	}
}

func TestExecTimeout(t *testing.T) {
	// Not parallel: an exec run in the test process moves its threads off
	// the target for the run, and a corepin process a parallel test starts
	// meanwhile would inherit that mask and choose its CPUs by it.
	requireExec(t)
	report := filepath.Join(t.TempDir(), "r.json")
	start := time.Now()
	_, errOut, code := corepin(t, "exec", "-q", "--timeout", "300ms", "--report", report, "--", "sleep", "30")
	if code != 128+15 || time.Since(start) > 10*time.Second {
		t.Fatalf("exit %d after %v: %s", code, time.Since(start), errOut)
	}
	if rep := readReport(t, report); !rep.Child.TimedOut || rep.Child.Signal == nil || *rep.Child.Signal != "SIGTERM" {
		t.Errorf("child report %+v", rep.Child)
	}
}

// cliCommand runs the test binary as corepin in a process of its own.
func cliCommand(t *testing.T, exe string, args ...string) *exec.Cmd {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "COREPIN_AS_CLI=1")
	return cmd
}

func TestExecForwardsSignals(t *testing.T) {
	requireExec(t)
	exe, _ := os.Executable()
	cmd := cliCommand(t, exe, "exec", "-q", "--", "sh", "-c", `trap 'kill $!; exit 42' INT; echo ready; sleep 30 & wait`)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal only once the child's trap is in place.
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the child said %q, %v", line, err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if cmd.ProcessState.ExitCode() != 42 {
		t.Errorf("after SIGINT: %v, exit %d; want the child's trap to exit 42", err, cmd.ProcessState.ExitCode())
	}
}

// The test binary doubles as a busy program that widens its own affinity:
// with COREPIN_EXEC_HELPER=widen it runs three busy threads that set their
// masks to every CPU after 0.2 s of CPU time and spin for 0.5 s more (CPU
// time, not wall time: on a loaded machine they still do that much work).
func widenHelper() {
	all, err := testcpu.OnlineNow()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	done := make(chan struct{})
	for range 3 {
		go func() {
			runtime.LockOSThread()
			testcpu.Spin(100 * time.Millisecond)
			sched.SetAffinity(0, all)
			testcpu.Spin(300 * time.Millisecond)
			done <- struct{}{}
		}()
	}
	for range 3 {
		<-done
	}
	os.Exit(0)
}

func TestExecWatcherPullsBack(t *testing.T) {
	cpu := requireExec(t)
	exe, _ := os.Executable()
	report := filepath.Join(t.TempDir(), "r.json")
	t.Setenv("COREPIN_EXEC_HELPER", "widen")
	_, errOut, code := corepin(t, "exec", "-q", "--cpu", fmt.Sprint(cpu), "--report", report, "--", exe)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rep := readReport(t, report)
	w := rep.Watch
	if w == nil {
		t.Fatalf("no watch result: %s", rep.WatchError)
	}
	skipUnvouchedWatch(t, w.KeepUp)
	// In a cgroup for the run the kernel confines the widened masks to
	// the target, and there is nothing to put back.
	if w.Reasserts == 0 && rep.Tree.Mechanism == launch.MechanismProcessGroup {
		t.Error("no re-assertion although the threads widened their masks")
	}
	busy := 0
	for _, th := range w.Threads {
		if th.CPUSeconds < 0.2 {
			continue
		}
		busy++
		// Between widening its mask and being pulled back a thread may be
		// seen off the target, once or, on a loaded machine, twice;
		// never for the rest of its run.
		if th.OnTargetRatio == nil {
			t.Errorf("thread %d: no residency over %d running samples", th.TID, th.Running)
		} else if off := math.Round(float64(th.Running) * (1 - *th.OnTargetRatio)); off > 2 {
			t.Errorf("thread %d: %.0f of %d running samples off the target", th.TID, off, th.Running)
		}
	}
	if busy < 3 {
		t.Errorf("%d busy threads, want 3", busy)
	}
	if w.WatcherCPUs.Contains(cpu) || rep.Parent.CPUs.Contains(cpu) || !rep.Parent.Restored {
		t.Errorf("watcher on %s, parent on %s (restored %v): the target %d was not avoided", w.WatcherCPUs, rep.Parent.CPUs, rep.Parent.Restored, cpu)
	}
}

func TestExecUnprivileged(t *testing.T) {
	requireExec(t)
	for _, st := range starts {
		t.Run(st.name, func(t *testing.T) {
			report := filepath.Join(nobody.Dir(t), "r.json")
			cmd := nobody.Command(t, nobody.Executable(t), execArgs(st.flags, "-q", "--report", report, "--", "sh", "-c", "echo ran")...)
			cmd.Env = append(os.Environ(), "COREPIN_AS_CLI=1")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "ran") {
				t.Fatalf("as nobody: %v\n%s", err, out)
			}
			rep := readReport(t, report)
			eperm := 0
			for _, st := range rep.Ladder.Steps {
				if st.Errno == "EPERM" {
					eperm++
				}
				if st.Accepted {
					t.Errorf("step %d accepted as nobody", st.Step)
				}
			}
			if eperm == 0 || !rep.Readback.ExactAtReadback || rep.ExitCode() != 0 {
				t.Errorf("as nobody: %d EPERM steps, read-back %+v, exit %d", eperm, rep.Readback, rep.ExitCode())
			}
		})
	}
}

// A soft target keeps to one NUMA node, and the report records it.
func TestExecReportRecordsTheNode(t *testing.T) {
	requireExec(t)
	skipUnlessPriorityCanBeRaised(t) // the soft rule wants a ladder step held
	topo, err := topology.Read("/")
	if err != nil {
		t.Fatal(err)
	}
	target, err := topo.Select("prime")
	if err != nil {
		t.Fatal(err)
	}
	if target.Node == nil {
		t.Skip("this machine's NUMA nodes are unknown")
	}
	report := filepath.Join(t.TempDir(), "r.json")
	if _, errOut, code := corepin(t, "exec", "-q", "--mode", "soft", "--report", report, "--", "true"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rep := readReport(t, report)
	if rep.Target.Node == nil || *rep.Target.Node != *target.Node {
		t.Fatalf("report node %v, want %d", rep.Target.Node, *target.Node)
	}
	for _, c := range rep.Target.CPUs.CPUs() {
		if n := topo.NodeOf(c); n == nil || *n != *target.Node {
			t.Errorf("soft CPU %d is in node %v, not %d", c, n, *target.Node)
		}
	}
}

// TestExecReplace checks that with --replace the command is corepin's own
// process, on the requested CPU at the requested nice value, and that
// corepin's exit status is the command's.
func TestExecReplace(t *testing.T) {
	t.Parallel()
	cpu := requireExec(t)
	exe, _ := os.Executable()
	report := filepath.Join(t.TempDir(), "r.json")
	// Nice 5 needs no privilege; the shell prints its PID, mask and nice.
	script := `echo $$; grep Cpus_allowed_list /proc/$$/status; cut -d' ' -f19 /proc/$$/stat; exit 7`
	cmd := cliCommand(t, exe, "exec", "--replace", "-q", "--cpu", fmt.Sprint(cpu), "--nice", "5", "--report", report, "--", "sh", "-c", script)
	out, err := cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code != 7 {
		t.Fatalf("exit %d (%v), want the command's 7\n%s", code, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("output %q", out)
	}
	if lines[0] != fmt.Sprint(cmd.Process.Pid) {
		t.Errorf("the command ran as PID %s, corepin was %d", lines[0], cmd.Process.Pid)
	}
	if want := "Cpus_allowed_list:\t" + cpuset.Of(cpu).String(); lines[1] != want {
		t.Errorf("mask line %q, want %q", lines[1], want)
	}
	if lines[2] != "5" {
		t.Errorf("nice %s, want 5", lines[2])
	}
	rep := readReport(t, report)
	if rep.Start != launch.StartReplace || rep.Child.PID != cmd.Process.Pid || !rep.Readback.ExactAtReadback || rep.Readback.Nice != 5 {
		t.Errorf("report: start %q, pid %d, read-back %+v", rep.Start, rep.Child.PID, rep.Readback)
	}
	if rep.Child.ExitCode != nil || rep.Child.WallS != 0 {
		t.Errorf("the report has figures nobody measured: %+v", rep.Child)
	}
}

func TestExecReplaceFailures(t *testing.T) {
	t.Parallel()
	requireExec(t)
	exe, _ := os.Executable()
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"exec", "--replace", "-q", "--", "/no/such/program"}, 127},
		{[]string{"exec", "--replace", "-q", "--accept", "exact+policy=batch", "--", "true"}, 125},
		{[]string{"exec", "--replace", "--launcher", "--", "true"}, exitUsage},
		{[]string{"exec", "--replace", "--timeout", "1s", "--", "true"}, exitUsage},
	}
	for _, tt := range tests {
		cmd := cliCommand(t, exe, tt.args...)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != tt.code {
			t.Errorf("corepin %s: exit %d, want %d\n%s", strings.Join(tt.args, " "), code, tt.code, out)
		}
	}
}

// A command that sleeps uses a few milliseconds of CPU time in a second:
// whatever else ran on the target then, there is no verdict on sharing
// to give, and exec gives none, even beside a busy competitor.
func TestExecTooShortToJudge(t *testing.T) {
	cpu := requireExec(t)
	skipTimingUnderTCG(t, "a run too short to judge")
	spin := exec.Command("taskset", "-c", strconv.Itoa(cpu), "sh", "-c", "echo ready; while :; do :; done")
	out, err := spin.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := spin.Start(); err != nil {
		t.Skipf("no taskset: %v", err)
	}
	t.Cleanup(func() { spin.Process.Kill(); spin.Wait() })
	buf := make([]byte, 6)
	if n, _ := out.Read(buf); string(buf[:n]) != "ready\n" {
		t.Fatalf("the competitor did not start: %q", buf[:n])
	}
	_, errOut, code := corepin(t, "exec", "--cpu", strconv.Itoa(cpu), "--", "sh", "-c", "sleep 0.3")
	if code != 0 || strings.Contains(errOut, "warning") {
		t.Errorf("exit %d, want 0 and no warning:\n%s", code, errOut)
	}
}
