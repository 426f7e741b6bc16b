package session

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

func gettid() int           { return sched.Gettid() }
func getNice() (int, error) { return sched.GetNice(0) }

// lastCPU is the highest CPU the test may use (online and in its mask).
func lastCPU() int {
	usable, err := testcpu.UsableNow()
	if err != nil || usable.IsEmpty() {
		return 0
	}
	return usable.Last()
}
func requireRoot(t *testing.T) { t.Helper(); requireLinux(t); requireKernelPrivilege(t) }
func requireLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
}

func requireKernelPrivilege(t *testing.T) {
	t.Helper()
	if !sched.NiceLowering().Supported {
		t.Skip("needs CAP_SYS_NICE (run the tests as root): " + sched.NiceLowering().Evidence)
	}
}

// state is what a restore must bring back.
type state struct {
	mask cpuset.Set
	attr sched.Attr
	nice int
}

// readState reads the calling thread's state; it is called on a locked
// goroutine other than the test's, so it reports with t.Error and says
// whether it could read everything.
func readState(t *testing.T) (state, bool) {
	t.Helper()
	mask, err1 := sched.GetAffinity(0)
	attr, err2 := sched.GetAttr(0)
	nice, err3 := sched.GetNice(0)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Error(err)
		return state{}, false
	}
	return state{mask, attr, nice}, true
}

// onLockedThread runs f on a fresh locked goroutine; the thread is thrown
// away afterwards, so a failing test cannot leak its state. f runs on
// another goroutine than the test's, where t.Fatal must not be called: it
// reports with t.Error and returns.
func onLockedThread(f func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		f()
	}()
	<-done
}

func TestGeekbenchLadderOnThisKernel(t *testing.T) {
	requireRoot(t)
	onLockedThread(func() {
		before, ok := readState(t)
		s, err := Begin(Request{CPU: lastCPU(), Ladder: GeekbenchLadder()})
		if err != nil || !ok {
			t.Error(err)
			return
		}
		rep := s.Report()
		steps := rep.Ladder.Steps
		if steps[0].Skipped == "" {
			t.Errorf("step 1 (realtime) was not skipped: %+v", steps[0])
		}
		if !sched.Uclamp().Supported {
			for _, i := range []int{1, 2} {
				if steps[i].Errno != "EOPNOTSUPP" || steps[i].Accepted {
					t.Errorf("step %d on a kernel without uclamp = %+v, want EOPNOTSUPP", i+1, steps[i])
				}
			}
			if rep.Ladder.AcceptedStep != 4 || rep.Readback.Nice != -20 {
				t.Errorf("accepted step %d, nice %d; want step 4 with nice -20", rep.Ladder.AcceptedStep, rep.Readback.Nice)
			}
			if rep.Readback.Uclamp.Supported || rep.Readback.Uclamp.Min != nil || rep.Capture.Uclamp.Min != nil {
				t.Errorf("uclamp values reported on a kernel without uclamp: %+v", rep.Readback.Uclamp)
			}
		}
		if !rep.Readback.ExactAtReadback || rep.Readback.CPU != lastCPU() {
			t.Errorf("read-back not exact: %+v", rep.Readback)
		}
		res := s.Finish()
		if !res.OK {
			t.Errorf("restore failed: %+v", res)
			return
		}
		after, _ := readState(t)
		if !after.mask.Equal(before.mask) || after.attr != before.attr || after.nice != before.nice {
			t.Errorf("state after Finish = %+v, captured %+v", after, before)
		}
		if again := s.Finish(); !again.OK || len(again.Steps) != len(res.Steps) {
			t.Errorf("a second Finish = %+v", again)
		}
	})
}

func TestRealtimeStepWhenAllowed(t *testing.T) {
	requireLinux(t)
	if rt := sched.Realtime(); !rt.Supported {
		t.Skip("realtime is not allowed to this process: " + rt.Evidence)
	}
	onLockedThread(func() {
		before, ok := readState(t)
		s, err := Begin(Request{CPU: lastCPU(), Ladder: SPECLadder(), AllowRealtime: true})
		if err != nil || !ok {
			t.Error(err)
			return
		}
		rep := s.Report()
		want := 1
		if !sched.Uclamp().Supported {
			want = 3 // FIFO 1 alone
		}
		if rep.Ladder.AcceptedStep != want || rep.Readback.Policy != "fifo" || rep.Readback.Priority != 1 {
			t.Errorf("accepted step %d, read back %s:%d; want step %d with fifo:1", rep.Ladder.AcceptedStep, rep.Readback.Policy, rep.Readback.Priority, want)
		}
		if res := s.Finish(); !res.OK {
			t.Errorf("restore failed: %+v", res)
			return
		}
		if after, _ := readState(t); after.attr != before.attr || !after.mask.Equal(before.mask) {
			t.Errorf("after Finish %+v, captured %+v", after, before)
		}
	})
}

func TestRestoreAfterPanic(t *testing.T) {
	requireRoot(t)
	rep, err := Run(Request{CPU: lastCPU(), Ladder: GeekbenchLadder()}, func(*Session) error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "panicked: boom") {
		t.Fatalf("err = %v, want the panic", err)
	}
	if rep.Panic != "boom" || !rep.Restore.OK {
		t.Errorf("panic %q, restore %+v", rep.Panic, rep.Restore)
	}
}

func TestNotAcceptedDoesNotRun(t *testing.T) {
	requireRoot(t)
	if sched.Uclamp().Supported {
		t.Skip("this kernel has uclamp; the rule below would hold")
	}
	rule, err := ParseRule("exact+uclamp-min>=1024")
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	rep, err := Run(Request{CPU: lastCPU(), Ladder: GeekbenchLadder(), Accept: rule}, func(*Session) error { ran = true; return nil })
	if !errors.Is(err, ErrNotAccepted) || ran {
		t.Fatalf("err = %v, ran = %v; want ErrNotAccepted and no run", err, ran)
	}
	if rep.Accept.OK || !strings.Contains(rep.Accept.Why, "no uclamp") || !rep.Restore.OK {
		t.Errorf("accept %+v, restore %+v", rep.Accept, rep.Restore)
	}
}

func TestSoftMode(t *testing.T) {
	requireLinux(t)
	all := testcpu.Usable(t)
	rep, err := Run(Request{CPU: lastCPU(), Group: all, Mode: evidence.Soft, Ladder: AffinityOnly()}, func(s *Session) error {
		_, err := s.Observe()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Readback.CPUs.Equal(all) || !rep.Readback.InTargetGroup || rep.Observations != 1 {
		t.Errorf("soft read-back %+v, observations %d", rep.Readback, rep.Observations)
	}
}

func TestRefreshReassertsDrift(t *testing.T) {
	requireRoot(t)
	wide := testcpu.Usable(t)
	if wide.Len() < 2 {
		t.Skip("needs 2 usable CPUs to widen a mask")
	}
	onLockedThread(func() {
		s, err := Begin(Request{CPU: lastCPU(), Ladder: CustomLadder(nil, 0, nice(-5), nil)})
		if err != nil {
			t.Error(err)
			return
		}
		defer s.Finish()
		// Something else widens the mask and resets the nice value.
		sched.SetAffinity(0, wide)
		sched.SetNice(0, 0)
		n, err := s.Refresh()
		if err != nil || n != 2 {
			t.Errorf("Refresh = %d, %v; want 2 re-assertions", n, err)
			return
		}
		rb := s.Report().Readback
		if !rb.ExactAtReadback || rb.Nice != -5 || s.Report().Reasserts != 2 {
			t.Errorf("after Refresh: %+v, reasserts %d", rb, s.Report().Reasserts)
		}
		if n, _ := s.Refresh(); n != 0 {
			t.Errorf("a second Refresh re-asserted %d things with nothing drifted", n)
		}
	})
}

func TestWrongThreadIsRefused(t *testing.T) {
	requireRoot(t)
	var s *Session
	onLockedThread(func() {
		var err error
		if s, err = Begin(Request{CPU: lastCPU(), Ladder: AffinityOnly()}); err != nil {
			t.Error(err)
		}
	})
	if s == nil {
		return
	}
	// s's thread is gone; any other thread must be refused.
	onLockedThread(func() {
		if _, err := s.Observe(); !errors.Is(err, ErrWrongThread) {
			t.Errorf("Observe from another thread: %v", err)
		}
		if res := s.Finish(); res.OK {
			t.Error("Finish from another thread reported success")
		}
	})
}

func TestUnprivilegedLadder(t *testing.T) {
	requireLinux(t)
	res := runHelper(t, "geekbench", true)
	rep := res.Report
	if rep == nil {
		t.Fatalf("no report: %s", res.Err)
	}
	for _, st := range rep.Ladder.Steps {
		if st.Accepted {
			t.Errorf("step %d accepted as nobody: %+v", st.Step, st)
		}
	}
	last := rep.Ladder.Steps[len(rep.Ladder.Steps)-1]
	if last.Errno != "EPERM" {
		t.Errorf("nice -20 as nobody: %+v, want EPERM", last)
	}
	if rep.Ladder.Steps[0].Errno != "EPERM" {
		t.Errorf("FIFO as nobody: %+v, want EPERM", rep.Ladder.Steps[0])
	}
	if !rep.Affinity.OK || !rep.Readback.ExactAtReadback || !rep.Restore.OK || res.Err != "" {
		t.Errorf("affinity %+v, readback %+v, restore %+v, err %q", rep.Affinity, rep.Readback, rep.Restore, res.Err)
	}
}

func TestUnrestorableThreadIsDestroyed(t *testing.T) {
	requireLinux(t)
	res := runHelper(t, "unrestorable", true)
	rep := res.Report
	if rep == nil {
		t.Fatalf("no report: %s", res.Err)
	}
	if rep.Ladder.AcceptedStep != 1 || rep.Readback.Nice != 5 {
		t.Fatalf("nice 5 as nobody: %+v", rep.Ladder)
	}
	if rep.Restore.OK || !strings.Contains(res.Err, ErrRestoreFailed.Error()) {
		t.Errorf("restore %+v, err %q; want a failed restore", rep.Restore, res.Err)
	}
	if !res.LaterBegan {
		t.Error("a session after the destroyed thread was refused: the decision is to destroy, not to taint")
	}
	if !res.ThreadGone {
		t.Error("the thread with changed state still exists")
	}
	if res.DirtyRuns != 0 || res.RunsOnOldTID != 0 {
		t.Errorf("%d later goroutines saw a changed nice value, %d ran on the old thread", res.DirtyRuns, res.RunsOnOldTID)
	}
}

func TestRules(t *testing.T) {
	for _, bad := range []string{"", "strict", "exact+color=red", "exact+step", "soft+qos=fast", "exact+nice<=x"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) succeeded", bad)
		}
	}
	r, err := ParseRule("soft+step<=2+nice<=-10")
	if err != nil || r.String() != "soft+step<=2+nice<=-10" {
		t.Fatalf("ParseRule = %v, %v", r, err)
	}
	rep := &evidence.Session{Target: evidence.TargetReport{CPU: 1, CPUs: cpuset.Of(0, 1)},
		Readback: evidence.Readback{CPUs: cpuset.Of(0, 1), CPU: 1, InTargetGroup: true, Nice: -20},
		Ladder:   evidence.LadderResult{Name: "geekbench", Steps: make([]evidence.StepResult, 4), AcceptedStep: 4}}
	if ok, why := r.Check(rep); ok || !strings.Contains(why, "step") {
		t.Errorf("step 4 passed step<=2: %v %q", ok, why)
	}
	rep.Ladder.AcceptedStep = 2
	if ok, why := r.Check(rep); !ok {
		t.Errorf("rule refused: %q", why)
	}
	if ok, _ := ExactRule().Check(rep); ok {
		t.Error("exact accepted an incomplete capture with a two-CPU mask")
	}
}

func TestLadderValidate(t *testing.T) {
	fifo, other := sched.FIFO, sched.Normal
	for _, l := range []Ladder{
		CustomLadder(&fifo, 0, nil, nil),
		CustomLadder(&other, 3, nil, nil),
		CustomLadder(nil, 0, nice(-21), nil),
		CustomLadder(nil, 0, nil, &Clamp{Min: 900, Max: 800}),
		CustomLadder(nil, 0, nil, &Clamp{Min: 0, Max: 2000}),
	} {
		if l.Validate() == nil {
			t.Errorf("%s validated", l.Step(0))
		}
	}
	if _, err := Begin(Request{CPU: 0, Ladder: CustomLadder(&fifo, 100, nil, nil)}); err == nil {
		t.Error("Begin took an invalid ladder")
	}
}
