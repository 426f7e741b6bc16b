package observer

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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
// only the target's sibling left: the loop goes there and says so. The
// test binary, started from a thread confined to the core (a child
// inherits the mask of the thread that forks it), is that process.
func TestLoopTakesASiblingWhenNoOtherCore(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	_, avoid, core := lastAllowed(t)
	if core.Len() < 2 {
		t.Skipf("CPU %s has no SMT sibling", avoid)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	runtime.LockOSThread()
	orig, _ := sched.GetAffinity(0)
	if err = sched.SetAffinity(0, core); err == nil {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "COREPIN_OBSERVER_HELPER="+avoid.String())
		out, err = cmd.CombinedOutput()
	}
	sched.SetAffinity(0, orig)
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := fmt.Sprintf("on %s shared=false oncore=true note=the watcher runs on CPUs %s, SMT siblings of the work's CPUs %s: there is no other core it may use\n",
		core.Difference(avoid), core.Difference(avoid), avoid)
	if string(out) != want {
		t.Errorf("confined to the core %s, the helper says\n%s\nwant\n%s", core, out, want)
	}
}

// siblingHelper starts a loop avoiding the CPUs in its argument and says
// where it went.
func siblingHelper(avoid string) {
	set, err := cpuset.Parse(avoid)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	l, err := Start(context.Background(), time.Hour, set, Funcs{Tick: func() {}})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	l.Stop()
	fmt.Printf("on %s shared=%v oncore=%v note=%s\n", l.CPUs, l.Shared, l.OnCore, l.SharedNote("watcher"))
	os.Exit(0)
}

func TestMain(m *testing.M) {
	if avoid := os.Getenv("COREPIN_OBSERVER_HELPER"); avoid != "" {
		siblingHelper(avoid)
	}
	os.Exit(m.Run())
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
