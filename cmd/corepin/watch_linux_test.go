package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/sched"
)

// threadsProcess is the test binary started as threadsHelper; born asks
// it for one more thread and waits until it is there.
type threadsProcess struct {
	pid   int
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startThreads(t *testing.T) *threadsProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "COREPIN_EXEC_HELPER=threads")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return &threadsProcess{pid: cmd.Process.Pid, stdin: stdin, out: bufio.NewReader(stdout)}
}

func (p *threadsProcess) born(t *testing.T) {
	t.Helper()
	fmt.Fprintln(p.stdin)
	if line, err := p.out.ReadString('\n'); line != "born\n" {
		t.Fatalf("the helper said %q, %v", line, err)
	}
}

// taskMasks reads every thread's Cpus_allowed_list and nice value of pid,
// as /proc shows them to anyone, by TID.
func taskMasks(t *testing.T, pid int) map[int]string {
	t.Helper()
	paths, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no threads of %d: %v", pid, err)
	}
	masks := map[int]string{}
	for _, p := range paths {
		tid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		data, err := os.ReadFile(p)
		if err != nil {
			continue // ended
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				masks[tid] = strings.TrimSpace(v)
			}
		}
		if a, err := sched.GetAttr(tid); err == nil {
			masks[tid] += fmt.Sprintf(" nice %d", a.Nice)
		}
	}
	return masks
}

// allAre says whether every thread reads as want.
func allAre(masks map[int]string, want string) bool {
	for _, m := range masks {
		if m != want {
			return false
		}
	}
	return len(masks) > 0
}

// watchMaintain starts corepin watch --maintain of p on cpu as a process
// and returns it with its first line read: it is watching.
func watchMaintain(t *testing.T, p *threadsProcess, cpu int, stdout io.Writer) (*exec.Cmd, *bytes.Buffer, string) {
	t.Helper()
	args := []string{"watch", "--maintain", "--cpu", strconv.Itoa(cpu), "--period", "10ms"}
	want := fmt.Sprintf("%d nice 0", cpu)
	if sched.NiceLowering().Supported { // nice 3 back to 0 lowers it
		args = append(args, "--nice", "3")
		want = fmt.Sprintf("%d nice 3", cpu)
	}
	cmd := corepinProcess(t, append(args, strconv.Itoa(p.pid))...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !ended(cmd.Process.Pid) {
			cmd.Process.Kill()
		}
	})
	return cmd, &stderr, want
}

// TestWatchMaintainPutsBackOnSignals: SIGINT, SIGTERM and SIGHUP end
// watch --maintain with 128+N and every thread of the process as it was,
// those born while it was kept on the target included, as /proc reads.
func TestWatchMaintainPutsBackOnSignals(t *testing.T) {
	cpu := requireExec(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(unix.SignalName(sig), func(t *testing.T) {
			p := startThreads(t)
			before := taskMasks(t, p.pid)
			was := before[p.pid]
			if !allAre(before, was) || strings.HasPrefix(was, strconv.Itoa(cpu)+" ") {
				t.Skipf("the threads do not start alike and off CPU %d alone: %v", cpu, before)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd, stderr, changed := watchMaintain(t, p, cpu, w)
			w.Close()
			out := bufio.NewReader(r)
			if line, err := out.ReadString('\n'); !strings.HasPrefix(line, "watching process") {
				t.Fatalf("no first line: %q, %v\n%s", line, err, stderr)
			}
			waitFor(t, "every thread on the target", func() bool { return allAre(taskMasks(t, p.pid), changed) })
			p.born(t) // from threads on the target: it is born there
			cmd.Process.Signal(sig)
			rest, _ := io.ReadAll(out)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
				t.Errorf("exit %d, want %d\n%s", code, 128+int(sig), stderr)
			}
			after := taskMasks(t, p.pid)
			if !allAre(after, was) || len(after) <= len(before) {
				t.Errorf("after %v: threads %v, want every one (and the one born meanwhile) at %q", sig, after, was)
			}
			if !strings.Contains(string(rest), "put back as they were") {
				t.Errorf("the output does not say the threads were put back:\n%s", rest)
			}
		})
	}
}

// TestWatchEndsWhenItsReaderGoes: corepin watch --maintain PID | head -1
// ends once head has read its line and gone, with every thread put back,
// and exits 1 with the broken pipe named, as other commands whose output
// is cut off do.
func TestWatchEndsWhenItsReaderGoes(t *testing.T) {
	cpu := requireExec(t)
	p := startThreads(t)
	was := taskMasks(t, p.pid)[p.pid]
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd, stderr, changed := watchMaintain(t, p, cpu, w)
	w.Close()
	line, _ := bufio.NewReader(r).ReadString('\n') // head -1
	waitFor(t, "every thread on the target", func() bool { return allAre(taskMasks(t, p.pid), changed) })
	r.Close()
	waitFor(t, "watch to end once its reader has gone", func() bool { return ended(cmd.Process.Pid) })
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitFailure || !strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("exit %d, want %d with the broken pipe named; its line was %q\n%s", code, exitFailure, line, stderr)
	}
	if after := taskMasks(t, p.pid); !allAre(after, was) {
		t.Errorf("threads %v after the reader went, want every one at %q", after, was)
	}
}
