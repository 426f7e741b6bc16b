package sched

import (
	"errors"
	"os"
	"runtime"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// masks reads every thread's mask.
func masks(t *testing.T) map[int]cpuset.Set {
	t.Helper()
	m := map[int]cpuset.Set{}
	for _, tid := range OwnThreads(fsroot.Host) {
		if mask, err := GetAffinity(tid); err == nil {
			m[tid] = mask
		}
	}
	return m
}

// offEverywhere fails unless every thread but skip keeps off cpus.
func offEverywhere(t *testing.T, cpus cpuset.Set, skip int, when string) {
	t.Helper()
	for tid, m := range masks(t) {
		if tid != skip && !m.Intersect(cpus).IsEmpty() {
			t.Errorf("%s: thread %d may run on %s, want off %s", when, tid, m, cpus)
		}
	}
}

// TestOverlappingRunsPutTheMasksBack: two runs that keep corepin's threads
// off the same CPU overlap and end in the order they began; the second
// must not take the first's reduced mask for the original and put it back
// after the first has ended.
func TestOverlappingRunsPutTheMasksBack(t *testing.T) {
	avoid := cpuset.Of(otherCPU(t))
	orig, _ := GetAffinity(0)
	_, endA, err := KeepProcessOff(fsroot.Host, avoid, avoid)
	if err != nil {
		t.Fatal(err)
	}
	_, endB, err := KeepProcessOff(fsroot.Host, avoid, avoid)
	if err != nil {
		endA()
		t.Fatal(err)
	}
	if got, _ := InheritedMask(); !got.Equal(orig) {
		t.Errorf("InheritedMask during the runs = %s, want the mask before them, %s", got, orig)
	}
	offEverywhere(t, avoid, 0, "both runs")
	endA()
	offEverywhere(t, avoid, 0, "after the first ended, the second still in progress")
	endB()
	for tid, m := range masks(t) {
		if !m.Equal(orig) {
			t.Errorf("after both: thread %d may run on %s, want %s", tid, m, orig)
		}
	}
}

// TestHeldThreadStaysAndRunsAddUp: a thread that does a run's work keeps
// its mask when a run moves corepin's other threads off their targets;
// two runs keep the threads off both targets where a CPU is left, and a
// run whose target would leave none gets ErrNoOtherCPU and changes
// nothing.
func TestHeldThreadStaysAndRunsAddUp(t *testing.T) {
	usable, _ := usableNow()
	work := cpuset.Of(otherCPU(t))
	orig, _ := GetAffinity(0)
	ready, release, done := make(chan int), make(chan struct{}), make(chan cpuset.Set)
	go func() {
		runtime.LockOSThread() // thrown away: the goroutine exits locked
		SetAffinity(0, work)
		unhold := HoldThread(Gettid())
		ready <- Gettid()
		<-release
		unhold()
		m, _ := GetAffinity(0)
		done <- m
	}()
	held := <-ready
	_, endA, err := KeepProcessOff(fsroot.Host, work, work)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := GetAffinity(held); !m.Equal(work) {
		t.Errorf("the held thread was moved to %s, want it left on %s", m, work)
	}
	offEverywhere(t, work, held, "one run")
	rest := usable.Difference(work)
	_, endB, err := KeepProcessOff(fsroot.Host, rest, rest)
	if !errors.Is(err, ErrNoOtherCPU) {
		t.Errorf("a second run on every other CPU: err %v, want ErrNoOtherCPU", err)
	}
	endB()
	offEverywhere(t, work, held, "after the refused run")
	close(release)
	if m := <-done; !m.Intersect(work).IsEmpty() {
		t.Errorf("the thread let go while a run is in progress may run on %s, want off %s", m, work)
	}
	endA()
	if m, _ := GetAffinity(0); !m.Equal(orig) {
		t.Errorf("after the run: %s, want %s", m, orig)
	}
}

// A session that holds the main thread and pins it does not narrow the
// mask the process was given: topology chooses a run's CPUs by it, and a
// library user's first session may well be on the main thread.
func TestHeldMainThreadKeepsTheInheritedMask(t *testing.T) {
	pid := os.Getpid()
	before, err := GetAffinity(pid)
	if err != nil {
		t.Fatal(err)
	}
	cpu := otherCPU(t)
	unhold := HoldThread(pid)
	if err := SetAffinity(pid, cpuset.Of(cpu)); err != nil {
		unhold()
		t.Fatal(err)
	}
	got, err := InheritedMask()
	SetAffinity(pid, before) // the session's restore
	unhold()
	if err != nil || !got.Equal(before) {
		t.Errorf("with the main thread held and pinned to %d, InheritedMask = %s, %v; want %s", cpu, got, err, before)
	}
	if after, _ := InheritedMask(); !after.Equal(before) {
		t.Errorf("after the hold InheritedMask = %s, want %s", after, before)
	}
}
