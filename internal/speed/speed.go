// Package speed is corepin's probe of the target core's own speed: a
// short loop of fixed work, calibrated once, read on the target after each
// measured run. On a cloud vCPU the host can slow the core underneath the
// guest (a neighbour on the sibling hardware thread, the vCPU's placement)
// and no guest counter shows it; the loop's rate does, for the moment it
// runs. That moment is not the run: the core's speed changes from one
// millisecond to the next while whole runs of the same work vary by a
// few percent (bench/speed-witness.sh), so a reading is a reading of the
// core then, which corroborates what the run's own account says (its CPU
// time grew) and never stands for the run's speed.
package speed

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
)

// DefaultDuration is how long a probe lasts on a core at full speed.
// Beside the runs of a fixed-work command on a 2-vCPU KVM guest
// (bench/speed-witness.sh), probes of 0.1 ms read below 0.9 of their best
// most of the time, those of 10 ms more often still (the best of a
// calibration of 10 ms windows is a rare fast stretch), and those of 1 ms
// read near their best unless the core was slow for longer: a
// millisecond's reading followed the run times best. The runner reads a few
// of them after each run: milliseconds between runs, none inside one.
const DefaultDuration = time.Millisecond

// sink keeps the loop's result, so that the compiler cannot prove the
// work unused and remove it.
var sink atomic.Uint64

// work runs n steps of one addition each, into one register. The loop
// is three instructions that can issue every cycle, so its rate follows
// how much of the core's front end the thread gets. On a 2-vCPU AMD EPYC
// KVM guest the core's speed changed by 2× underneath the guest for such
// loops (most likely a neighbour of the host's on the same physical core)
// while a chain bound by a multiply's latency, a few cycles per step, ran
// on unchanged: a linear congruential generator as the probe read full
// speed while a fixed-work loop of additions ran at half, and explained
// nothing of its times.
// The result is stored, so that the compiler cannot drop the loop.
//
//go:noinline
func work(n int, x uint64) uint64 {
	for i := range n {
		x += uint64(i)
	}
	return x
}

// Probe is the calibrated loop: Iterations steps last about Duration at
// the best rate calibration saw.
type Probe struct {
	Iterations int           `json:"iterations"`
	Duration   time.Duration `json:"duration_ns"`
	// Rate is the best rate of the calibration, in steps per second.
	Rate float64 `json:"rate"`
}

// Reading is one run of the probe.
type Reading struct {
	// Rate is steps per second of wall time: what a slowed core, a
	// competitor on it and a bandwidth limit all lower.
	Rate  float64 `json:"rate"`
	WallS float64 `json:"wall_s"`
	// OnCPU is the probe thread's CPU time over its wall time: near 1
	// when it ran the whole time (so a low rate is the core's own speed),
	// lower when it waited for the CPU (others ran there, a CPU bandwidth
	// limit, the host's steal). Null where the thread's CPU clock cannot
	// be read.
	OnCPU *float64 `json:"on_cpu,omitempty"`
	// CPU is where the probe ended; -1 when getcpu failed.
	CPU int `json:"cpu"`
}

// Calibrate finds how many steps last d (DefaultDuration when 0) on the
// calling thread, which should already be on the target: the count grows
// until a run lasts a quarter of d, then the best of a few full runs sets
// the rate. It takes about 10 d.
func Calibrate(d time.Duration) Probe {
	if d <= 0 {
		d = DefaultDuration
	}
	n := 1024
	for {
		el := timed(n)
		if el >= d/4 || n > math.MaxInt32 {
			n = int(float64(n) * float64(d) / float64(max(el, time.Microsecond)))
			break
		}
		n *= 2
	}
	n = max(n, 1)
	best := 0.0
	for range 5 {
		if r := float64(n) / timed(n).Seconds(); r > best {
			best = r
		}
	}
	return Probe{Iterations: max(int(best*d.Seconds()), 1), Duration: d, Rate: best}
}

func timed(n int) time.Duration {
	start := time.Now()
	sink.Store(work(n, sink.Load()))
	return max(time.Since(start), time.Nanosecond)
}

// Read runs the probe once on the calling thread.
func (p Probe) Read() Reading {
	cpu0, cpuErr := sched.ThreadCPUTime(0)
	start := time.Now()
	sink.Store(work(p.Iterations, sink.Load()))
	wall := max(time.Since(start), time.Nanosecond)
	cpu1, cpuErr1 := sched.ThreadCPUTime(0)
	r := Reading{Rate: float64(p.Iterations) / wall.Seconds(), WallS: wall.Seconds(), CPU: -1}
	if cpuErr == nil && cpuErr1 == nil {
		on := min(float64(cpu1-cpu0)/float64(wall), 1)
		r.OnCPU = &on
	}
	if c, err := sched.GetCPU(); err == nil {
		r.CPU = c
	}
	return r
}

// Thread is a thread of its own kept for the probes, so that a probe costs
// no thread creation and no migration: it waits, locked and pinned, for
// the next probe, and is destroyed by Stop. Before each probe its mask is
// read back and set again if something (launch keeping corepin off the
// target during a run) changed it.
type Thread struct {
	cpus cpuset.Set
	work chan func()
	done chan error
}

// NewThread starts a thread pinned to cpus; the error says why it could
// not be placed.
func NewThread(cpus cpuset.Set) (*Thread, error) {
	t := &Thread{cpus: cpus, work: make(chan func()), done: make(chan error)}
	go func() {
		release := sched.Throwaway()
		defer release()
		err := t.place()
		t.done <- err
		if err != nil {
			return
		}
		for f := range t.work {
			if err := t.place(); err != nil {
				t.done <- err
				continue
			}
			f()
			t.done <- nil
		}
	}()
	if err := <-t.done; err != nil {
		return nil, err
	}
	return t, nil
}

// place pins the calling thread to t's CPUs unless it is already there,
// and reads the mask back.
func (t *Thread) place() error {
	if got, err := sched.GetAffinity(0); err == nil && got.Equal(t.cpus) {
		return nil
	}
	if err := sched.SetAffinity(0, t.cpus); err != nil {
		return fmt.Errorf("pinning the speed probe to CPUs %s: %w", t.cpus, err)
	}
	got, err := sched.GetAffinity(0)
	if err != nil {
		return fmt.Errorf("reading the speed probe's mask back: %w", err)
	}
	if !got.Equal(t.cpus) {
		return fmt.Errorf("%w: asked CPUs %s, the kernel kept %s", ErrNotPlaced, t.cpus, got)
	}
	return nil
}

// Do runs f on the thread, on its CPUs; f does not run when the thread
// cannot be placed there.
func (t *Thread) Do(f func()) error {
	t.work <- f
	return <-t.done
}

// Stop ends the thread; the runtime destroys it.
func (t *Thread) Stop() { close(t.work) }

// ErrNotPlaced is returned by On when the thread could not be kept on
// the CPUs asked.
var ErrNotPlaced = errors.New("the probe's thread could not be placed")

// On runs f on a new thread of its own pinned to cpus, and destroys the
// thread afterwards, so that its mask reaches no other goroutine. The
// mask is read back: a thread the kernel kept elsewhere (a cpuset without
// those CPUs) is an error, and f does not run.
func On(cpus cpuset.Set, f func()) error {
	errc := make(chan error, 1)
	go func() {
		release := sched.Throwaway()
		defer release()
		if err := sched.SetAffinity(0, cpus); err != nil {
			errc <- fmt.Errorf("pinning the speed probe to CPUs %s: %w", cpus, err)
			return
		}
		got, err := sched.GetAffinity(0)
		if err != nil {
			errc <- fmt.Errorf("reading the speed probe's mask back: %w", err)
			return
		}
		if !got.Equal(cpus) {
			errc <- fmt.Errorf("%w: asked CPUs %s, the kernel kept %s", ErrNotPlaced, cpus, got)
			return
		}
		f()
		errc <- nil
	}()
	return <-errc
}
