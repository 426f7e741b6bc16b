package partition

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/testcpu"
)

// allCPUs is every CPU the test may use: online and in its mask.
func allCPUs(t *testing.T) cpuset.Set { return testcpu.Usable(t) }

// TestEveryElementOnce runs every strategy over sizes that do not divide
// evenly, with more chunks than elements and with one worker, and checks
// that each element was processed exactly once per iteration. Run it with
// -race: the body writes without atomics, so an overlap is a data race.
func TestEveryElementOnce(t *testing.T) {
	for _, tc := range []struct {
		n, chunks int
		cpus      cpuset.Set
	}{
		{n: 1000, chunks: 7, cpus: allCPUs(t)},
		{n: 1001, chunks: 16, cpus: allCPUs(t)},
		{n: 5, chunks: 64, cpus: allCPUs(t)}, // more chunks than elements
		{n: 97, chunks: 4, cpus: cpuset.Of(allCPUs(t).First())},
		{n: 0, chunks: 4, cpus: allCPUs(t)},
		{n: 3, chunks: 1, cpus: allCPUs(t)}, // fewer elements than... one chunk
	} {
		for _, s := range []Strategy{Static, Dynamic, Guided} {
			for _, pin := range []bool{false, true} {
				seen := make([]int32, tc.n)
				const iterations = 3
				res, err := Run(Options{N: tc.n, CPUs: tc.cpus, Pin: pin, Strategy: s, Chunks: tc.chunks, Iterations: iterations,
					Body: func(lo, hi int) {
						for i := lo; i < hi; i++ {
							seen[i]++
						}
					}})
				if err != nil {
					t.Fatal(err)
				}
				for i, c := range seen {
					if c != iterations {
						t.Fatalf("%s n=%d chunks=%d pin=%v: element %d processed %d times", s, tc.n, tc.chunks, pin, i, c)
					}
				}
				covered := 0
				for _, c := range res.Timeline {
					covered += c.Hi - c.Lo
					if pin && !tc.cpus.Contains(c.CPUStart) {
						t.Errorf("a pinned worker ran on CPU %d", c.CPUStart)
					}
				}
				if covered != tc.n*iterations {
					t.Errorf("%s: the timeline covers %d elements, want %d", s, covered, tc.n*iterations)
				}
			}
		}
	}
}

func TestChunkCounts(t *testing.T) {
	count := func(s Strategy, chunks int) int {
		res, err := Run(Options{N: 1024, CPUs: allCPUs(t), Strategy: s, Chunks: chunks, Iterations: 1, Body: func(int, int) {}})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Timeline)
	}
	if got, want := count(Static, 0), allCPUs(t).Len(); got != want {
		t.Errorf("static: %d chunks, want one per worker (%d)", got, want)
	}
	if got := count(Dynamic, 16); got != 16 {
		t.Errorf("dynamic with 16 chunks: %d", got)
	}
	if got := count(Guided, 16); got < 4 || got > 64 {
		t.Errorf("guided: %d chunks", got)
	}
}

func TestBarrierPerIteration(t *testing.T) {
	var inFlight, worst atomic.Int32
	var iteration atomic.Int32
	res, err := Run(Options{N: 64, CPUs: allCPUs(t), Strategy: Dynamic, Chunks: 64, Iterations: 5, Body: func(lo, hi int) {
		n := inFlight.Add(1)
		if n > worst.Load() {
			worst.Store(n)
		}
		inFlight.Add(-1)
		iteration.Load()
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Chunks of iteration k all end before any chunk of iteration k+1 starts.
	last := map[int]int64{}
	first := map[int]int64{}
	for _, c := range res.Timeline {
		if e := int64(c.End); e > last[c.Iteration] {
			last[c.Iteration] = e
		}
		if s, ok := first[c.Iteration]; !ok || int64(c.Start) < s {
			first[c.Iteration] = int64(c.Start)
		}
	}
	for it := 1; it < 5; it++ {
		if first[it] < last[it-1] {
			t.Errorf("iteration %d started before iteration %d ended", it, it-1)
		}
	}
}

func TestInvalid(t *testing.T) {
	body := func(int, int) {}
	for _, o := range []Options{
		{N: -1, CPUs: allCPUs(t), Strategy: Static, Iterations: 1, Body: body},
		{N: 1, Strategy: Static, Iterations: 1, Body: body},
		{N: 1, CPUs: allCPUs(t), Strategy: "random", Iterations: 1, Body: body},
		{N: 1, CPUs: allCPUs(t), Strategy: Dynamic, Chunks: 0, Iterations: 1, Body: body},
		{N: 1, CPUs: allCPUs(t), Strategy: Static, Iterations: 0, Body: body},
		{N: 1, CPUs: allCPUs(t), Strategy: Static, Iterations: 1},
	} {
		if _, err := Run(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestContextStops: a context cancelled during a run stops it between
// chunks: Run returns the context's error, no result, and hands out no
// chunk after the one that saw the cancel.
func TestContextStops(t *testing.T) {
	for _, s := range []Strategy{Static, Dynamic, Guided} {
		ctx, cancel := context.WithCancel(context.Background())
		var calls atomic.Int32
		cpus := cpuset.Of(allCPUs(t).First()) // one worker: the order is known
		res, err := Run(Options{N: 1000, CPUs: cpus, Strategy: s, Chunks: 100, Iterations: 50, Context: ctx,
			Body: func(lo, hi int) {
				if calls.Add(1) == 3 {
					cancel()
				}
			}})
		if !errors.Is(err, context.Canceled) || res.Elapsed != 0 || res.Timeline != nil {
			t.Errorf("%s: cancelled run returned %v, %v", s, res.Elapsed, err)
		}
		if n := calls.Load(); n != 3 {
			t.Errorf("%s: %d chunks ran after the cancel", s, n-3)
		}
	}
}
