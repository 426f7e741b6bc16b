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
)

func TestLoopKeepsOffAndCallsInOrder(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux with 2 CPUs")
	}
	avoid := cpuset.Of(runtime.NumCPU() - 1)
	var first, ticks, last atomic.Int32
	var onAvoided atomic.Bool
	l, err := Start(context.Background(), 10*time.Millisecond, avoid, Funcs{
		First: func() { first.Add(1) },
		Tick: func() {
			ticks.Add(1)
			if cpu, err := sched.GetCPU(); err == nil && avoid.Contains(cpu) {
				onAvoided.Store(true)
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
		t.Errorf("a loop off the avoided CPUs has a shared note %q", note)
	}
	if l.Shared || l.CPUs.Intersect(avoid).Len() != 0 || onAvoided.Load() {
		t.Errorf("the loop ran on %s (shared %v), avoiding %s", l.CPUs, l.Shared, avoid)
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
