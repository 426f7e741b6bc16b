package watch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// The test binary doubles as a busy child: with COREPIN_WATCH_HELPER=busy
// it starts three busy threads that, after a moment, widen their own
// affinity to every CPU, as a program that resets its affinity would.
func TestMain(m *testing.M) {
	switch os.Getenv("COREPIN_WATCH_HELPER") {
	case "busy":
		busyChild()
	default:
		helperChild(os.Getenv("COREPIN_WATCH_HELPER")) // keepup_test.go
	}
	os.Exit(m.Run())
}

func busyChild() {
	all, err := testcpu.OnlineNow()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Three threads widen their masks after 0.2 s of CPU time and spin
	// for 0.5 s more (CPU time: on a loaded machine they still do that much
	// work); then the helper says so and waits for its stdin to close.
	done := make(chan struct{})
	for range 3 {
		go func() {
			runtime.LockOSThread()
			testcpu.Spin(200 * time.Millisecond)
			sched.SetAffinity(0, all)
			testcpu.Spin(500 * time.Millisecond)
			done <- struct{}{}
			select {} // stay, so the test can read the thread's mask
		}()
	}
	for range 3 {
		<-done
	}
	fmt.Println("done")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

func TestWatcherPullsBackWidenedThreads(t *testing.T) {
	cpu := testcpu.Target(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "COREPIN_WATCH_HELPER=busy")
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
	defer cmd.Wait()
	defer stdin.Close()
	target := cpuset.Of(cpu)
	w, err := Start(context.Background(), Options{PID: cmd.Process.Pid, Mask: target, Maintain: true, Avoid: target})
	if err != nil {
		t.Fatal(err)
	}
	// Wait for the helper's "done": its threads did their work.
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "done\n" {
		t.Fatalf("the helper said %q, %v", line, err)
	}
	res := w.Stop()
	if res.Reasserts == 0 {
		t.Error("no re-assertion although the threads widened their masks")
	}
	// A widened thread runs elsewhere, at a whole CPU, until the watcher's
	// next tick, a period and its lateness away; the residency, the share
	// of its time seen on the target, places each interval by a sample at
	// one of its ends, so it may count up to twice that off the target. A
	// thread left widened would spend most of its last 0.5 s elsewhere.
	offMax := 2 * (float64(res.PeriodMs) + res.KeepUp.MaxLateMs) / 1000
	busy := 0
	for _, th := range res.Threads {
		if th.CPUSeconds < 0.1 {
			continue // the runtime's idle threads
		}
		busy++
		floor := 1 - offMax/th.CPUSeconds
		switch {
		case th.OnTargetRatio == nil:
			t.Errorf("thread %d (%.2f s of CPU): no residency from %d running samples", th.TID, th.CPUSeconds, th.Running)
		case *th.OnTargetRatio >= floor:
			t.Logf("thread %d (%.2f s of CPU): on target %.3f of its time (at least %.3f)", th.TID, th.CPUSeconds, *th.OnTargetRatio, floor)
		case res.KeepUp.Unvouched:
			// An emulated guest: the watcher missed its ticks, the threads
			// ran widened in between, and the result says it cannot vouch.
			t.Logf("thread %d (%.2f s of CPU): on target %.3f of its time, with the watcher unvouched (%d of %d ticks missed)",
				th.TID, th.CPUSeconds, *th.OnTargetRatio, res.KeepUp.Missed, res.KeepUp.Expected)
		default:
			t.Errorf("thread %d (%.2f s of CPU): on target %.3f of its time, want at least %.3f (a %d ms period, ticks up to %.0f ms late), and the watcher vouches for it",
				th.TID, th.CPUSeconds, *th.OnTargetRatio, floor, res.PeriodMs, res.KeepUp.MaxLateMs)
		}
	}
	if busy < 3 {
		t.Errorf("found %d busy threads, want 3: %+v", busy, res.Threads)
	}
	if res.WatcherCPUs.Intersect(target).Len() != 0 {
		t.Errorf("the watcher was allowed on %s, which includes the target %s", res.WatcherCPUs, target)
	}
	for _, th := range res.Threads {
		if mask, err := sched.GetAffinity(th.TID); err == nil && !mask.Equal(target) {
			t.Errorf("thread %d ends with mask %s", th.TID, mask)
		}
	}
}

// fakeProc writes /proc/PID/task/TID/stat files under a fixture root.
func fakeProc(t *testing.T, root string, pid, tid int, ticks, start uint64, cpu int) {
	t.Helper()
	dir := filepath.Join(root, "proc", fmt.Sprint(pid), "task", fmt.Sprint(tid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(statLine("worker", ticks, 0, start, cpu)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReusedTIDIsANewThread(t *testing.T) {
	root := t.TempDir()
	fakeProc(t, root, 100, 101, 50, 1000, 1)
	w := newWatcher(Options{PID: 100, Root: fsroot.Root(root), Mask: cpuset.Of(1)})
	w.sample()
	fakeProc(t, root, 100, 101, 80, 1000, 1) // ran 0.3 s on CPU 1
	w.sample()
	// Thread 101 exits; an unrelated thread gets TID 101, started later,
	// with more CPU time than the first ever had.
	fakeProc(t, root, 100, 101, 500, 2000, 0)
	w.sample()
	fakeProc(t, root, 100, 101, 510, 2000, 0)
	w.sample()
	res := w.result()
	if len(res.Threads) != 2 {
		t.Fatalf("%d threads recorded, want 2: %+v", len(res.Threads), res.Threads)
	}
	first, second := res.Threads[0], res.Threads[1]
	if first.Start != 1000 || first.CPUSeconds != 0.3 || first.Running != 1 || first.OnTarget != 1 {
		t.Errorf("first thread %+v", first)
	}
	if second.Start != 2000 || second.CPUSeconds != 0.1 || second.OnTarget != 0 || second.Migrations != 0 {
		t.Errorf("second thread %+v: the reused TID was merged with the first", second)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(context.Background(), Options{PID: 0}); err == nil {
		t.Error("PID 0 accepted")
	}
	if _, err := Start(context.Background(), Options{PID: 1 << 30}); err == nil {
		t.Error("a process that does not exist accepted")
	}
}

func TestThreadBornBetweenSamplesCounts(t *testing.T) {
	root := t.TempDir()
	uptime := func(s string) { os.WriteFile(filepath.Join(root, "proc", "uptime"), []byte(s+" 0.00\n"), 0o644) }
	fakeProc(t, root, 100, 100, 5, 1000, 1)
	uptime("10.00") // 1000 ticks
	w := newWatcher(Options{PID: 100, Root: fsroot.Root(root), Mask: cpuset.Of(1)})
	w.sample()
	// A compute thread starts after that sample and has run 8 ticks on the
	// target by the next one.
	fakeProc(t, root, 100, 107, 8, 1005, 1)
	uptime("10.10")
	w.sample()
	res := w.result()
	var born *evidence.ThreadStat
	for i := range res.Threads {
		if res.Threads[i].TID == 107 {
			born = &res.Threads[i]
		}
	}
	if born == nil || born.Running != 1 || born.OnTarget != 1 || born.CPUSeconds != 0.08 {
		t.Errorf("thread born between samples: %+v", born)
	}
}
