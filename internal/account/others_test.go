package account

import (
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/busy"
	"corepin.dev/corepin/results/evidence"
)

// The target's busy time less the work's is others' only once corepin's
// own starting thread's time there is taken out too.
func TestOthersLeaveOutCorepinsOwnThread(t *testing.T) {
	before := busy.Reading{At: time.Second, Tasks: map[int]time.Duration{3: 10 * time.Second}, Source: busy.Cpuacct}
	after := busy.Reading{At: 2 * time.Second, Tasks: map[int]time.Duration{3: 10*time.Second + 900*time.Millisecond}, Source: busy.Cpuacct}
	o := OthersBetween(before, after, 800*time.Millisecond, 60*time.Millisecond, "cgroup", true)
	if o == nil || o.OwnS != 0.06 || o.S < 0.0399 || o.S > 0.0401 {
		t.Fatalf("others %+v: want 40 ms, corepin's own 60 ms apart", o)
	}
	if o := OthersBetween(before, after, 950*time.Millisecond, 60*time.Millisecond, "cgroup", true); o.S != 0 {
		t.Errorf("others %v s where the work and corepin account for more than the busy time: want 0", o.S)
	}
}

// The run cgroup's account before the window is the starting thread's,
// not the work's: it comes off the work's time in the window.
func TestOthersOfTreeLeaveOutTheCgroupsAccountBefore(t *testing.T) {
	before := busy.Reading{At: time.Second, Tasks: map[int]time.Duration{3: 10 * time.Second}, Source: busy.Cpuacct}
	after := busy.Reading{At: 2 * time.Second, Tasks: map[int]time.Duration{3: 11 * time.Second}, Source: busy.Cpuacct}
	s := &evidence.Scheduling{Tree: &evidence.TreeReport{PerCPUSeconds: map[int]float64{3: 0.9, 0: 0.5}}}
	w := TreeWindow{Before: before, After: after, CgroupBefore: &CgroupAccount{PerCPU: map[int]time.Duration{3: 100 * time.Millisecond, 0: time.Second}}}
	o := OthersOfTree(s, cpuset.Of(3), w)
	if o == nil || o.WorkS < 0.7999 || o.WorkS > 0.8001 || o.S < 0.1999 || o.S > 0.2001 || !o.Exact {
		t.Errorf("others %+v: want the work's 0.8 s (0.9 less the 0.1 before), others 0.2 s, exact", o)
	}
}

// Preemptors are named by process, the most time first, the work's own
// and those under a tenth of a millisecond left out.
func TestPreemptors(t *testing.T) {
	ran := []Ran{
		{PID: 10, TID: 11, CPU: 3, Comm: "worker", OnCPU: 2 * time.Millisecond},
		{PID: 10, TID: 10, CPU: 3, Comm: "main", OnCPU: time.Millisecond},
		{PID: 20, TID: 20, CPU: 3, Comm: "sshd", OnCPU: 5 * time.Millisecond},
		{PID: 30, TID: 30, CPU: 0, Comm: "elsewhere", OnCPU: time.Second},
		{PID: 40, TID: 40, CPU: 3, Comm: "brief", OnCPU: 50 * time.Microsecond},
		{PID: 50, TID: 51, CPU: 3, Comm: "work", OnCPU: time.Second},
	}
	got := Preemptors(ran, cpuset.Of(3), func(pid, _ int) bool { return pid == 50 })
	if len(got) != 2 || got[0].PID != 20 || got[1].PID != 10 || got[1].Comm != "main" || got[1].OnCPUS < 0.0029 || got[1].OnCPUS > 0.0031 {
		t.Errorf("preemptors %+v, want sshd (20) then main (10) at 3 ms", got)
	}
}

// The target's own kernel threads' time between the readings is said
// apart, each that ran most first; one read only once (it ended, or
// started, in the window) is left out, and its time stays with the
// others'.
func TestOthersSayTheTargetsOwnKernelThreads(t *testing.T) {
	before := busy.Reading{At: time.Second, Tasks: map[int]time.Duration{3: 10 * time.Second}, Source: busy.ProcStat,
		Kernel: []busy.KernelThread{{PID: 26, Comm: "migration/3", Run: time.Second}, {PID: 27, Comm: "ksoftirqd/3", Run: time.Second}, {PID: 40, Comm: "kworker/3:0", Run: time.Second}}}
	after := busy.Reading{At: 2 * time.Second, Tasks: map[int]time.Duration{3: 10*time.Second + 900*time.Millisecond}, Source: busy.ProcStat,
		Kernel: []busy.KernelThread{{PID: 26, Comm: "migration/3", Run: time.Second + 2*time.Millisecond}, {PID: 27, Comm: "ksoftirqd/3", Run: time.Second + 5*time.Millisecond},
			{PID: 41, Comm: "kworker/3:1", Run: 7 * time.Millisecond}}}
	o := OthersBetween(before, after, 800*time.Millisecond, 0, "cgroup", true)
	if o == nil || o.KernelS < 0.00699 || o.KernelS > 0.00701 || o.S < 0.0999 || o.S > 0.1001 {
		t.Fatalf("others %+v: want 100 ms, 7 ms of it the kernel threads'", o)
	}
	if k := o.KernelThreads; len(k) != 2 || k[0].Comm != "ksoftirqd/3" || k[1].Comm != "migration/3" {
		t.Errorf("kernel threads %+v: want ksoftirqd/3 then migration/3", k)
	}
}
