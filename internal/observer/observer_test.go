package observer

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

// lastAllowed is the highest CPU this process may use, and its core.
func lastAllowed(t *testing.T) (cpuset.Set, cpuset.Set, cpuset.Set) {
	t.Helper()
	mask, err := sched.GetAffinity(0)
	if err != nil {
		t.Skipf("cannot read this thread's mask: %v", err)
	}
	avoid := cpuset.Of(mask.Last())
	core, err := topology.CoreSiblings("/", avoid)
	if err != nil {
		t.Fatal(err)
	}
	return mask, avoid, core
}

func TestLoopKeepsOffAndCallsInOrder(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	mask, avoid, core := lastAllowed(t)
	if mask.Difference(core).IsEmpty() {
		t.Skipf("needs a CPU off the core %s of CPU %s (allowed: %s)", core, avoid, mask)
	}
	var first, ticks, last atomic.Int32
	var onCore atomic.Bool
	l, err := Start(context.Background(), 10*time.Millisecond, avoid, Funcs{
		First: func() { first.Add(1) },
		Tick: func() {
			ticks.Add(1)
			if cpu, err := sched.GetCPU(); err == nil && core.Contains(cpu) {
				onCore.Store(true)
			}
		},
		Last: func() { last.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	l.Stop()
	if first.Load() != 1 || ticks.Load() < 1 || last.Load() != 1 {
		t.Errorf("first %d, ticks %d, last %d", first.Load(), ticks.Load(), last.Load())
	}
	if note := l.SharedNote("sampler"); note != "" {
		t.Errorf("a loop off the avoided core has a shared note %q", note)
	}
	// Off the whole physical core, SMT siblings included.
	if l.Shared || l.OnCore || l.CPUs.Intersect(core).Len() != 0 || onCore.Load() {
		t.Errorf("the loop ran on %s (shared %v, on core %v), avoiding CPU %s of core %s", l.CPUs, l.Shared, l.OnCore, avoid, core)
	}
}

// A process confined to one core (taskset -c 6,7 on an SMT machine) has
// only the target's sibling left: the loop goes there and says so.
func TestLoopTakesASiblingWhenNoOtherCore(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	_, avoid, core := lastAllowed(t)
	if core.Len() < 2 {
		t.Skipf("CPU %s has no SMT sibling", avoid)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, _ := sched.GetAffinity(0)
	if err := sched.SetAffinity(0, core); err != nil {
		t.Fatal(err)
	}
	defer sched.SetAffinity(0, orig)
	// The loop's thread is created from this one and inherits its mask.
	l, err := Start(context.Background(), time.Hour, avoid, Funcs{Tick: func() {}})
	if err != nil {
		t.Fatal(err)
	}
	l.Stop()
	if l.Shared || !l.OnCore || !l.CPUs.Equal(core.Difference(avoid)) {
		t.Errorf("on %s (shared %v, on core %v), want the sibling %s", l.CPUs, l.Shared, l.OnCore, core.Difference(avoid))
	}
	if note := l.SharedNote("watcher"); !strings.Contains(note, "SMT siblings of the work's CPUs "+avoid.String()) {
		t.Errorf("note %q", note)
	}
}

func TestLoopSharesWhenNoOtherCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	var ticks atomic.Int32
	l, err := Start(context.Background(), time.Hour, cpuset.Range(0, 4095), Funcs{Tick: func() { ticks.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	l.Stop()
	if !l.Shared || l.CPUs.IsEmpty() || ticks.Load() != 1 {
		t.Errorf("shared %v on %s, %d ticks (the last call falls back to Tick)", l.Shared, l.CPUs, ticks.Load())
	}
	if note := l.SharedNote("sampler"); !strings.Contains(note, "the sampler shares CPUs "+l.CPUs.String()) {
		t.Errorf("shared note %q", note)
	}
}
