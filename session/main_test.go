package session

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/results/evidence"
)

// The test binary doubles as a helper process: with COREPIN_SESSION_HELPER
// set it runs one of the helpers below instead of the tests and prints its
// findings as JSON. The privilege tests run it as nobody.
func TestMain(m *testing.M) {
	if name := os.Getenv("COREPIN_SESSION_HELPER"); name != "" {
		h, ok := helpers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "no helper %q\n", name)
			os.Exit(2)
		}
		out := h()
		json.NewEncoder(os.Stdout).Encode(out)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var helpers = map[string]func() any{
	"geekbench":    helperGeekbench,
	"unrestorable": helperUnrestorable,
}

// helperResult is what a helper reports to its test.
type helperResult struct {
	Report *evidence.Session `json:"report"`
	Err    string            `json:"err"`
	// For the destruction test: whether the session's thread still
	// exists, and how many later goroutines ran on a thread whose nice
	// value was not 0.
	ThreadGone   bool `json:"thread_gone"`
	DirtyRuns    int  `json:"dirty_runs"`
	RunsOnOldTID int  `json:"runs_on_old_tid"`
	LaterBegan   bool `json:"later_began"`
}

func helperGeekbench() any {
	rep, err := Run(Request{CPU: 0, Ladder: GeekbenchLadder(), AllowRealtime: true}, func(*Session) error { return nil })
	res := helperResult{Report: rep}
	if err != nil {
		res.Err = err.Error()
	}
	return res
}

// helperUnrestorable raises the thread's nice value, which an unprivileged
// process may do but cannot undo: the restore fails, and the thread must be
// destroyed rather than reused.
func helperUnrestorable() any {
	five := 5
	rep, err := Run(Request{CPU: 0, Ladder: CustomLadder(nil, 0, &five, nil)}, func(*Session) error { return nil })
	_, laterErr := Run(Request{CPU: 0, Ladder: AffinityOnly()}, func(*Session) error { return nil })
	res := helperResult{Report: rep, LaterBegan: laterErr == nil}
	if err != nil {
		res.Err = err.Error()
	}
	if rep == nil {
		return res
	}
	// The runtime destroys the thread just after the goroutine exits; the
	// main thread is never destroyed but wedged, which serves as well.
	for i := 0; i < 100 && !res.ThreadGone; i++ {
		_, statErr := os.Stat(fmt.Sprintf("/proc/self/task/%d", rep.TID))
		res.ThreadGone = os.IsNotExist(statErr) || rep.TID == os.Getpid()
		time.Sleep(10 * time.Millisecond)
	}
	res.DirtyRuns, res.RunsOnOldTID = probeThreads(rep.TID, 2000)
	return res
}

// runHelper runs the test binary as a helper, as nobody when asked.
func runHelper(t *testing.T, name string, asNobody bool) helperResult {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	if asNobody {
		cmd = nobody.Command(t, nobody.Executable(t))
	}
	cmd.Env = append(os.Environ(), "COREPIN_SESSION_HELPER="+name)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper %s: %v\n%s", name, err, out)
	}
	var res helperResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("helper %s printed %q: %v", name, out, err)
	}
	return res
}

// probeThreads runs n goroutines, each briefly locked to whatever thread the
// scheduler gives it, and counts those that found a changed nice value or
// the given TID.
func probeThreads(oldTID, n int) (dirty, onOld int) {
	type seen struct{ tid, nice int }
	ch := make(chan seen, n)
	for range n {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			nice, _ := getNice()
			ch <- seen{gettid(), nice}
		}()
	}
	for range n {
		s := <-ch
		if s.nice != 0 {
			dirty++
		}
		if s.tid == oldTID {
			onOld++
		}
	}
	return dirty, onOld
}
