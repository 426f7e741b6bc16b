package launch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// The launcher runs on the process's main thread (see Main): the test
// binary, which doubles as it, keeps its main goroutine there from its
// initialisation on, as corepin's main package does.
func init() { runtime.LockOSThread() }

// The test binary doubles as the launcher: it answers corepin's helper
// verbs.
func TestMain(m *testing.M) {
	if os.Getenv("COREPIN_LAUNCH_HELPER") == "launcher-off-main" {
		launcherOffMain()
	}
	Dispatch(os.Args, echoVerb)
	if os.Getenv("COREPIN_LAUNCH_HELPER") == "nice5twice" {
		os.Exit(niceFiveTwice())
	}
	if helper, ok := treeHelpers[os.Getenv("COREPIN_LAUNCH_HELPER")]; ok {
		os.Exit(helper())
	}
	os.Exit(m.Run())
}

// launcherOffMain runs the launcher on a goroutine locked to another
// thread than the main one, which the main goroutine holds.
func launcherOffMain() {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		Main()
		close(done)
	}()
	<-done
	os.Exit(2)
}

// TestLauncherRefusesAnotherThread: a launcher that is not on the main
// thread says so and exits instead of starting a command whose thread
// would not be the one it set up.
func TestLauncherRefusesAnotherThread(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "COREPIN_LAUNCH_HELPER=launcher-off-main", specEnv+`={"request":{"cpu":0},"args":["true"]}`)
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	var m message
	json.NewDecoder(r).Decode(&m)
	cmd.Wait()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(m.Failed, "main one") || m.Report != nil {
		t.Errorf("launcher off the main thread: %v, sent %+v; want exit 1 and the refusal", cmd.ProcessState, m)
	}
}

// niceFiveTwice launches twice with nice 5, which an unprivileged thread
// can ask for but not undo, and prints what each launch reported.
func niceFiveTwice() int {
	five := 5
	for range 2 {
		usable, err := testcpu.UsableNow()
		if err != nil {
			fmt.Println("error:", err)
			return 1
		}
		rep, err := Run(context.Background(), Config{
			Request: session.Request{CPU: usable.Last(), Ladder: session.CustomLadder(nil, 0, &five, nil)}, Args: []string{"true"},
		})
		if err != nil {
			fmt.Println("error:", err)
			return 1
		}
		fmt.Printf("start=%s exit=%d restored=%v nice=%d\n", rep.Start, rep.ExitCode(), rep.Restore.OK, rep.Readback.Nice)
	}
	return 0
}

// BenchmarkLaunchTrue is a whole launch of /bin/true on the last CPU with
// the default ladder and the watcher, as corepin exec does it (without the
// command line's own start-up): forked from a prepared thread, and through
// the re-executed launcher.
func BenchmarkLaunchTrue(b *testing.B) {
	for _, launcher := range []bool{false, true} {
		name := StartFork
		if launcher {
			name = StartLauncher
		}
		b.Run(name, func(b *testing.B) {
			cpu := testcpu.Target(b)
			for b.Loop() {
				rep, err := Run(context.Background(), Config{
					Request: session.Request{CPU: cpu, Ladder: session.GeekbenchLadder()}, Args: []string{"true"},
					WatchPeriod: 100e6, Launcher: launcher,
				})
				if err != nil || rep.ExitCode() != 0 || rep.Start != name {
					b.Fatalf("%v, exit %d, start %s", err, rep.ExitCode(), rep.Start)
				}
			}
		})
	}
}

// BenchmarkTasksetChrt is the baseline: taskset -c CPU chrt -o 0 true.
func BenchmarkTasksetChrt(b *testing.B) {
	taskset, err1 := exec.LookPath("taskset")
	chrt, err2 := exec.LookPath("chrt")
	if err1 != nil || err2 != nil {
		b.Skip("needs taskset and chrt")
	}
	cpu := testcpu.Target(b)
	for b.Loop() {
		if err := exec.Command(taskset, "-c", strconv.Itoa(cpu), chrt, "-o", "0", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLaunchRefusesNothingToRun(t *testing.T) {
	if _, err := Run(context.Background(), Config{}); err == nil {
		t.Error("a launch without a command succeeded")
	}
}

// A QoS level is set on the thread by an ioctl that fork does not copy, so
// it always goes through the launcher, whose thread becomes the command.
func TestRunQoSGoesThroughTheLauncher(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	level := qos.UserInteractive
	var out bytes.Buffer
	rep, err := Run(context.Background(), Config{
		Request: session.Request{CPU: testcpu.Usable(t).Last(), Ladder: session.QoSLadder(level), QoS: &level, Accept: session.AnyRule()},
		Args:    []string{"sh", "-c", "echo $$"},
		Stdout:  &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Start != StartLauncher || rep.ExitCode() != 0 {
		t.Fatalf("start %q, exit %d", rep.Start, rep.ExitCode())
	}
	// The launcher execs the command in place: the session's thread is the
	// command's main thread.
	if got := strings.TrimSpace(out.String()); got != strconv.Itoa(rep.TID) || rep.Child.PID != rep.TID {
		t.Errorf("command pid %s, child %d, session thread %d: not the same", got, rep.Child.PID, rep.TID)
	}
}

// Forked, the command starts as a copy of the session's thread: another
// process, and that thread is put back afterwards.
func TestRunForkedPutsTheThreadBack(t *testing.T) {
	cpu := testcpu.Target(t)
	var out bytes.Buffer
	rep, err := Run(context.Background(), Config{
		Request: session.Request{CPU: cpu, Ladder: session.GeekbenchLadder()},
		Args:    []string{"grep", "Cpus_allowed_list", "/proc/self/status"},
		Stdout:  &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Start != StartFork || rep.Child.PID == rep.TID {
		t.Errorf("start %q, child %d, session thread %d", rep.Start, rep.Child.PID, rep.TID)
	}
	if want := "Cpus_allowed_list:\t" + strconv.Itoa(cpu); !strings.Contains(out.String(), want) {
		t.Errorf("the command read %q, want %q", out.String(), want)
	}
	if !rep.Restore.Done || !rep.Restore.OK {
		t.Errorf("the forking thread was not put back: %+v", rep.Restore)
	}
}

// Unprivileged, a raised nice cannot be lowered again, so the thread that
// forked the command cannot be put back. It is ended instead, which leaves
// nothing changed, so the next launch must not be refused.
func TestRunForkedUnrestorableThreadIsEnded(t *testing.T) {
	testcpu.Target(t)
	cmd := nobody.Command(t, nobody.Executable(t))
	cmd.Env = append(os.Environ(), "COREPIN_LAUNCH_HELPER=nice5twice")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := "start=fork exit=0 restored=false nice=5"
	if len(lines) != 2 || lines[0] != want || lines[1] != want {
		t.Errorf("as nobody, two launches with nice 5 printed\n%s\nwant twice %q", out, want)
	}
}

// In process, the work runs on a session thread of this process: the report
// says so, every other thread keeps off the target meanwhile, and
// everything is put back.
func TestRunThread(t *testing.T) {
	cpu := testcpu.Target(t)
	var tid int
	var onTarget []int
	others := 0
	rep, err := RunThread(context.Background(), ThreadConfig{
		Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, WatchPeriod: 10 * time.Millisecond,
	}, func(s *session.Session) error {
		tid = s.TID()
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, e := range entries {
			other, err := strconv.Atoi(e.Name())
			if err != nil || other == tid {
				continue
			}
			mask, err := sched.GetAffinity(other)
			if err != nil {
				continue // the thread ended
			}
			others++
			if mask.Contains(cpu) {
				onTarget = append(onTarget, other)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Start != StartThread || rep.TID != tid || !rep.Readback.ExactAtReadback || !rep.Restore.OK || rep.Child.PID != os.Getpid() {
		t.Errorf("report: start %q, tid %d (work on %d), readback %+v, restore %+v", rep.Start, rep.TID, tid, rep.Readback, rep.Restore)
	}
	if others == 0 || len(onTarget) > 0 || !rep.Parent.Restored {
		t.Errorf("during the work, of %d other threads %v could run on the target %d; restored %v", others, onTarget, cpu, rep.Parent.Restored)
	}
	if rep.Watch == nil || len(rep.Watch.Threads) != 1 {
		t.Errorf("watch: %+v (%s)", rep.Watch, rep.WatchError)
	}
}

func TestStartPinned(t *testing.T) {
	cpu := testcpu.Usable(t).Last()
	p, err := StartPinned(cpu, exec.Command("sleep", "30"), exec.Command("sleep", "30"))
	if err != nil {
		t.Fatal(err)
	}
	procs := p.Processes()
	for _, proc := range procs {
		mask, err := sched.GetAffinity(proc.Pid)
		if err != nil || !mask.Equal(cpuset.Of(cpu)) {
			t.Errorf("process %d: mask %s, %v; want %d", proc.Pid, mask, err, cpu)
		}
	}
	p.Stop()
	for _, proc := range procs {
		if sched.ProcessAlive(proc.Pid) {
			t.Errorf("process %d still runs after Stop", proc.Pid)
		}
	}
	if _, err := StartPinned(cpu, exec.Command("/nonexistent/program")); err == nil {
		t.Error("a program that does not exist was started")
	}
}
