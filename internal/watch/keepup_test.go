//go:build linux

package watch

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// helperChild is the test binary as one of the children below.
func helperChild(name string) {
	switch name {
	case "escape":
		escapeChild()
	case "priority":
		priorityChild()
	}
}

// escapeChild starts COREPIN_ESCAPE_THREADS busy threads at nice -20 that
// move themselves onto the CPUs COREPIN_ESCAPE_AWAY, where the watcher
// runs, off the target COREPIN_ESCAPE_TARGET, prints "ready" and spins for
// two seconds; then it prints the share of its spinning spent on the
// target, as each thread saw it itself (getcpu(2) at every turn of its
// loop, whose turns cost the same wherever it runs).
func escapeChild() {
	n, _ := strconv.Atoi(os.Getenv("COREPIN_ESCAPE_THREADS"))
	target, _ := strconv.Atoi(os.Getenv("COREPIN_ESCAPE_TARGET"))
	// Not the mask this process reads of itself: the watcher may already
	// have put it on the target.
	away, err := cpuset.Parse(os.Getenv("COREPIN_ESCAPE_AWAY"))
	if err != nil || away.IsEmpty() {
		os.Exit(3)
	}
	runtime.GOMAXPROCS(n + 2) // every thread runs: none waits for a P
	debug.SetGCPercent(-1)    // no stop-the-world among 500 spinning threads
	ready, start := make(chan struct{}, n), make(chan struct{})
	var on, all atomic.Int64
	var done sync.WaitGroup
	var end time.Time     // set before start is closed
	sched.SetNice(0, -20) // the main thread too: it competes with them where the watcher puts them
	for range n {
		done.Add(1)
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			sched.SetNice(0, -20)
			sched.SetAffinity(0, away)
			ready <- struct{}{}
			<-start // every thread exists before any spins
			var turns, onTarget int64
			for time.Now().Before(end) {
				if cpu, _ := sched.GetCPU(); cpu == target {
					onTarget++
				}
				turns++
			}
			on.Add(onTarget)
			all.Add(turns)
		}()
	}
	for range n {
		<-ready
	}
	end = time.Now().Add(2 * time.Second)
	close(start)
	fmt.Println("ready")
	done.Wait()
	fmt.Printf("%.4f\n", float64(on.Load())/float64(max(all.Load(), 1)))
	os.Exit(0)
}

// escape runs a child whose threads escape to the watcher's CPUs at nice
// -20, and watches it with the given watcher priority. It returns the
// watcher's result and the share of the child's spinning on the target
// as the child saw it.
func escape(t *testing.T, threads int, period time.Duration, priority string) (evidence.Watch, float64) {
	t.Helper()
	mask, err := sched.GetAffinity(0)
	if err != nil || mask.Len() < 2 {
		t.Skip("needs two CPUs allowed to this process")
	}
	target := cpuset.Of(mask.CPUs()[mask.Len()-1])
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "COREPIN_WATCH_HELPER=escape", fmt.Sprintf("COREPIN_ESCAPE_THREADS=%d", threads),
		fmt.Sprintf("COREPIN_ESCAPE_TARGET=%d", target.First()), "COREPIN_ESCAPE_AWAY="+mask.Difference(target).String())
	pipe, _ := cmd.StdoutPipe()
	out := bufio.NewReader(pipe)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	// Watched from its start, as launch watches a command: this process
	// itself, at nice 0, may be starved once the threads escape.
	w, err := Start(context.Background(), Options{PID: cmd.Process.Pid, Period: period, Mask: target, Avoid: target,
		Maintain: true, Priority: priority})
	if err != nil {
		t.Fatal(err)
	}
	if line, _ := out.ReadString('\n'); line != "ready\n" {
		t.Fatalf("the child said %q", line)
	}
	line, _ := out.ReadString('\n')
	seen, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
	if err != nil {
		t.Fatalf("the child's share on the target: %q", line)
	}
	// Wait for the child's end without reaping it, so that the watcher's
	// last look still finds its threads.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	return w.Stop(), seen
}

// TestWatcherKeepsUpWithEscapingThreads: 500 threads at nice -20 escape to
// the watcher's CPU. The watcher, above them in priority, puts them back;
// the residency it reports is the share of their time it saw on the
// target, which must agree with what the threads saw themselves, unless
// the result says it could not keep up (its missed ticks) instead of
// vouching for it. Counting the samples in which a thread's clock ticks
// grew gave 0 here: 500 threads sharing a CPU hardly show a tick.
func TestWatcherKeepsUpWithEscapingThreads(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the threads ask for nice -20")
	}
	res, seen := escape(t, 500, 100*time.Millisecond, "")
	k := res.KeepUp
	t.Logf("%+v", k)
	if res.OnTargetRatio == nil {
		t.Fatalf("no residency after %d samples of 500 running threads", res.Samples)
	}
	ratio := *res.OnTargetRatio
	t.Logf("watcher at %s: residency %.3f (the threads saw %.3f), %d samples, %d re-assertions, %d of %d ticks missed, %d late, CPU share %.1f%%",
		k.Priority, ratio, seen, res.Samples, res.Reasserts, k.Missed, k.Expected, k.Late, 100*k.CPUShare)
	// A watcher that missed its ticks (an emulated guest) may not have met
	// every thread before the run ended; it says so (Unvouched) instead.
	if res.Reasserts < 500 && !k.Unvouched {
		t.Errorf("%d re-assertions: the threads did not all escape, or were not all put back", res.Reasserts)
	}
	if k.Unvouched && k.Missed == 0 {
		t.Error("an unvouched result that missed no tick")
	}
	// The threads count only their two seconds of spinning; the watcher
	// sees the child's whole life, whose start (500 threads made, the
	// runtime's own) is a small part of it on a real CPU and a large one
	// in an emulated guest.
	if shape := os.Getenv("MACHINE_SHAPE"); shape != "" && os.Getenv("MACHINE_ACCEL") != "kvm" && math.Abs(ratio-seen) > 0.1 {
		t.Skipf("under TCG in the %s guest the child's start takes much of its life, which the threads' own count leaves out: residency %.3f against %.3f is not judged", shape, ratio, seen)
	}
	if math.Abs(ratio-seen) > 0.1 && !k.Unvouched {
		t.Errorf("residency %.3f where the threads saw %.3f, with %d of %d ticks missed, and the result vouches for it", ratio, seen, k.Missed, k.Expected)
	}
}

// TestWatcherPriorityAsNobody: without privilege the watcher cannot raise
// its priority, and says it runs as started.
func TestWatcherPriorityAsNobody(t *testing.T) {
	cmd := nobody.Command(t, nobody.Executable(t))
	cmd.Env = append(os.Environ(), "COREPIN_WATCH_HELPER=priority")
	out, err := cmd.Output()
	if got := string(out); err != nil || got != "as started (a higher priority was refused)\n" {
		t.Errorf("as nobody the watcher holds %q (%v)", got, err)
	}
}

// priorityChild prints what a watcher thread gets.
func priorityChild() {
	runtime.LockOSThread() // the thread ends with the process
	fmt.Println(raiseProcess("", true))
	os.Exit(0)
}

// TestWatcherPriorityChoice compares the watcher's priorities against 500
// escaping threads (set COREPIN_WATCH_COMPARE=1; it takes a few seconds
// each): what it missed and what it cost, for the record of the choice.
func TestWatcherPriorityChoice(t *testing.T) {
	if os.Getenv("COREPIN_WATCH_COMPARE") == "" || os.Geteuid() != 0 {
		t.Skip("set COREPIN_WATCH_COMPARE=1 and run as root")
	}
	for _, p := range []string{"fifo:1", "nice -20", PriorityAsIs} {
		res, _ := escape(t, 500, 100*time.Millisecond, p)
		k := res.KeepUp
		ratio := 0.0
		if res.OnTargetRatio != nil {
			ratio = *res.OnTargetRatio
		}
		t.Logf("%-16s residency %.3f, %d samples, missed %d of %d ticks (max %.0f ms late), watcher CPU %.1f%% over %.1f s",
			k.Priority, ratio, res.Samples, k.Missed, k.Expected, k.MaxLateMs, 100*k.CPUShare, k.WatchedS)
	}
}
