//go:build linux

package watch

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/nobody"
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
// move themselves off the target CPU COREPIN_ESCAPE_TARGET, onto the CPUs
// where the watcher runs, prints "ready" and spins for two seconds.
func escapeChild() {
	n, _ := strconv.Atoi(os.Getenv("COREPIN_ESCAPE_THREADS"))
	target, _ := strconv.Atoi(os.Getenv("COREPIN_ESCAPE_TARGET"))
	mask, err := sched.GetAffinity(0)
	if err != nil {
		os.Exit(3)
	}
	away := mask.Difference(cpuset.Of(target))
	runtime.GOMAXPROCS(n + 2) // every thread runs: none waits for a P
	debug.SetGCPercent(-1)    // no stop-the-world among 500 spinning threads
	ready, start := make(chan struct{}, n), make(chan struct{})
	var end time.Time     // set before start is closed
	sched.SetNice(0, -20) // the main thread too: it competes with them where the watcher puts them
	for range n {
		go func() {
			runtime.LockOSThread()
			sched.SetNice(0, -20)
			sched.SetAffinity(0, away)
			ready <- struct{}{}
			<-start // every thread exists before any spins
			for time.Now().Before(end) {
			}
		}()
	}
	for range n {
		<-ready
	}
	end = time.Now().Add(2 * time.Second)
	close(start)
	fmt.Println("ready")
	time.Sleep(time.Until(end))
	os.Exit(0)
}

// escape runs a child whose threads escape to the watcher's CPUs at nice
// -20, and watches it with the given watcher priority.
func escape(t *testing.T, threads int, period time.Duration, priority string) Result {
	t.Helper()
	mask, err := sched.GetAffinity(0)
	if err != nil || mask.Len() < 2 {
		t.Skip("needs two CPUs allowed to this process")
	}
	target := cpuset.Of(mask.CPUs()[mask.Len()-1])
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "COREPIN_WATCH_HELPER=escape",
		fmt.Sprintf("COREPIN_ESCAPE_THREADS=%d", threads), fmt.Sprintf("COREPIN_ESCAPE_TARGET=%d", target.First()))
	out, _ := cmd.StdoutPipe()
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
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the child said %q", line)
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
	return w.Stop()
}

// TestWatcherKeepsUpWithEscapingThreads: 500 threads at nice -20 escape to
// the watcher's CPU. The watcher, above them in priority, puts them back
// (residency at least 0.9); if it could not keep up, the result says so
// with its missed ticks instead of vouching for a residency it did not see.
func TestWatcherKeepsUpWithEscapingThreads(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the threads ask for nice -20")
	}
	res := escape(t, 500, 100*time.Millisecond, "")
	k := res.KeepUp
	ratio := 0.0
	if res.OnTargetRatio != nil {
		ratio = *res.OnTargetRatio
	}
	t.Logf("%+v", k)
	t.Logf("watcher at %s: residency %.3f, %d samples, %d re-assertions, %d of %d ticks missed, %d late, CPU share %.1f%%",
		k.Priority, ratio, res.Samples, res.Reasserts, k.Missed, k.Expected, k.Late, 100*k.CPUShare)
	if ratio < 0.9 && !k.Unvouched {
		t.Errorf("residency %.3f with %d of %d ticks missed, and the result vouches for it", ratio, k.Missed, k.Expected)
	}
	if k.Unvouched && len(k.Warnings()) == 0 {
		t.Error("an unvouched result without a warning")
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
		res := escape(t, 500, 100*time.Millisecond, p)
		k := res.KeepUp
		ratio := 0.0
		if res.OnTargetRatio != nil {
			ratio = *res.OnTargetRatio
		}
		t.Logf("%-16s residency %.3f, %d samples, missed %d of %d ticks (max %.0f ms late), watcher CPU %.1f%% over %.1f s",
			k.Priority, ratio, res.Samples, k.Missed, k.Expected, k.MaxLateMs, 100*k.CPUShare, k.WatchedS)
	}
}
