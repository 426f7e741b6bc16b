package watch

import (
	"os"
	"runtime"
	"sync"
	"testing"

	"corepin.dev/corepin/cpuset"
)

// BenchmarkSample prices one sample of a process with 16 threads, per
// followed thread, the way the watcher samples (stat, schedstat and sched
// through files kept open) against the way it sampled before it read the
// scheduler's account (stat alone, opened afresh). The growth of the
// first over the second is the account's cost.
func BenchmarkSample(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("needs /proc")
	}
	const threads = 16
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			<-stop
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	// "every-sched" reads every thread's sched file each time, as for
	// threads that all ran since the last sample: the worst case.
	for _, c := range []struct {
		name           string
		statOnly, last bool
	}{{"stat-only", true, false}, {"schedstat", false, false}, {"every-sched", false, true}} {
		b.Run(c.name, func(b *testing.B) {
			w := newWatcher(Options{PID: os.Getpid(), Root: "/", Mask: cpuset.Of(0)})
			w.statOnly, w.last = c.statOnly, c.last
			w.sample()
			n := len(w.tasks(os.Getpid()))
			for b.Loop() {
				w.sample()
			}
			w.closeAll()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/thread")
		})
	}
}
