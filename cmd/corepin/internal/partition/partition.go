// Package partition is a parallel-for over [0, n) with the strategies of
// the partition experiment: static (one equal contiguous block per
// worker), dynamic (chunks handed out from a shared atomic counter) and
// guided (chunks that shrink with the work left). There is one locked
// worker thread per chosen CPU, optionally pinned to it; every iteration
// ends at a barrier, as an OpenMP parallel-for does; and every chunk is
// recorded (worker, thread, CPU at start and end, times) so that a
// timeline shows where the work ran.
package partition

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
)

// Strategy is how [0, n) is split among the workers.
type Strategy string

const (
	Static  Strategy = "static"
	Dynamic Strategy = "dynamic"
	Guided  Strategy = "guided"
)

// Options describe a parallel-for.
type Options struct {
	N        int        // the range is [0, N)
	CPUs     cpuset.Set // one worker per CPU; the workers may run only there
	Pin      bool       // pin each worker to its own CPU (else all of CPUs)
	Strategy Strategy
	// Chunks is the number of chunks for dynamic (chunk size N/Chunks,
	// rounded up), and the smallest chunk's share for guided.
	Chunks     int
	Iterations int
	// Body processes [lo, hi); it is called from the worker threads.
	Body func(lo, hi int)
	// Context, when set, stops the run between chunks once it is done:
	// Run then returns its error and no result.
	Context context.Context
	// Setup, when set, runs on each worker's thread once it is placed,
	// before any work (the partition experiment puts the workers of slow
	// CPUs into a CPU bandwidth limit there); an error ends the run.
	Setup func(worker, tid int) error
}

// Chunk is one piece of work as it ran.
type Chunk struct {
	Iteration int           `json:"iteration"`
	Worker    int           `json:"worker"`
	TID       int           `json:"tid"`
	CPUStart  int           `json:"cpu_start"`
	CPUEnd    int           `json:"cpu_end"`
	Lo        int           `json:"lo"`
	Hi        int           `json:"hi"`
	Start     time.Duration `json:"start_ns"`
	End       time.Duration `json:"end_ns"`
}

// Result is a parallel-for's time and timeline.
type Result struct {
	Elapsed  time.Duration `json:"elapsed_ns"`
	Timeline []Chunk       `json:"timeline"`
}

// Run executes the parallel-for. Worker threads whose affinity was changed
// are never handed back to the Go scheduler: their goroutines exit locked
// and the runtime destroys them.
func Run(opts Options) (Result, error) {
	if err := opts.validate(); err != nil {
		return Result{}, err
	}
	cpus := opts.CPUs.CPUs()
	workers := len(cpus)
	start := make([]chan int, workers) // iteration number, or -1 to stop
	var barrier sync.WaitGroup
	var ready sync.WaitGroup
	var next atomic.Int64    // the next chunk (dynamic) or next element (guided)
	var done <-chan struct{} // never ready without a context
	if opts.Context != nil {
		done = opts.Context.Done()
	}
	timelines := make([][]Chunk, workers)
	errs := make([]error, workers)
	t0 := time.Now()
	ready.Add(workers)
	for w := range workers {
		start[w] = make(chan int)
		go func() {
			release := sched.Throwaway() // the thread may carry a changed mask
			defer release()
			mask := opts.CPUs
			if opts.Pin {
				mask = cpuset.Of(cpus[w])
			}
			tid := sched.Gettid()
			errs[w] = sched.SetAffinity(0, mask)
			if errs[w] == nil && opts.Setup != nil {
				errs[w] = opts.Setup(w, tid)
			}
			ready.Done()
			for it := range start[w] {
				if it < 0 {
					return
				}
				timelines[w] = opts.work(w, workers, it, tid, &next, done, t0, timelines[w])
				barrier.Done()
			}
		}()
	}
	ready.Wait()
	defer func() {
		for w := range workers {
			start[w] <- -1
		}
	}()
	for _, err := range errs {
		if err != nil && !errors.Is(err, errors.ErrUnsupported) {
			return Result{}, fmt.Errorf("placing a worker: %w", err)
		}
	}
	begin := time.Now()
	for it := range opts.Iterations {
		if isDone(done) {
			return Result{}, opts.Context.Err()
		}
		next.Store(0)
		barrier.Add(workers)
		for w := range workers {
			start[w] <- it
		}
		barrier.Wait()
	}
	res := Result{Elapsed: time.Since(begin)}
	if isDone(done) { // an iteration cut short is no time
		return Result{}, opts.Context.Err()
	}
	for _, tl := range timelines {
		res.Timeline = append(res.Timeline, tl...)
	}
	return res, nil
}

func (o Options) validate() error {
	switch {
	case o.N < 0:
		return fmt.Errorf("parallel-for over %d elements", o.N)
	case o.CPUs.IsEmpty():
		return errors.New("parallel-for without CPUs")
	case o.Iterations < 1:
		return errors.New("parallel-for needs at least one iteration")
	case o.Body == nil:
		return errors.New("parallel-for without a body")
	case o.Strategy != Static && o.Strategy != Dynamic && o.Strategy != Guided:
		return fmt.Errorf("unknown strategy %q (want static, dynamic or guided)", o.Strategy)
	case o.Strategy != Static && o.Chunks < 1:
		return fmt.Errorf("%s needs a chunk count of at least 1", o.Strategy)
	}
	return nil
}

// isDone says whether done is closed, without waiting.
func isDone(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// work is one worker's part of one iteration; a stopped run hands out no
// more chunks.
func (o Options) work(w, workers, it, tid int, next *atomic.Int64, done <-chan struct{}, t0 time.Time, tl []Chunk) []Chunk {
	run := func(lo, hi int) {
		if lo >= hi || isDone(done) {
			return
		}
		c := Chunk{Iteration: it, Worker: w, TID: tid, Lo: lo, Hi: hi, Start: time.Since(t0)}
		c.CPUStart, _ = sched.GetCPU()
		o.Body(lo, hi)
		c.CPUEnd, _ = sched.GetCPU()
		c.End = time.Since(t0)
		tl = append(tl, c)
	}
	switch o.Strategy {
	case Static:
		run(w*o.N/workers, (w+1)*o.N/workers)
	case Dynamic:
		size := (o.N + o.Chunks - 1) / o.Chunks
		for {
			i := int(next.Add(1) - 1)
			lo := i * size
			if lo >= o.N || isDone(done) {
				break
			}
			run(lo, min(lo+size, o.N))
		}
	case Guided:
		// As OpenMP's guided schedule: each chunk is the work left divided
		// by twice the workers, never below N/Chunks.
		least := max(1, (o.N+o.Chunks-1)/o.Chunks)
		for {
			lo := int(next.Load())
			if lo >= o.N || isDone(done) {
				break
			}
			size := max(least, (o.N-lo)/(2*workers))
			if !next.CompareAndSwap(int64(lo), int64(min(lo+size, o.N))) {
				continue
			}
			run(lo, min(lo+size, o.N))
		}
	}
	return tl
}
