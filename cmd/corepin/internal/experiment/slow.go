package experiment

import (
	"errors"
	"fmt"
	"os"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/bandwidth"
	"corepin.dev/corepin/internal/speed"
	"corepin.dev/corepin/sched"
)

// The ways to emulate a slow CPU (PartitionConfig.SlowBy).
const (
	// SlowByWork stretches a chunk that runs on a slow CPU to F times its
	// CPU time: a smooth, exact 1/F that belongs to the CPU, as a real
	// slow core's does, for pinned and unpinned workers alike. The default.
	SlowByWork = "work"
	// SlowByBandwidth holds the slow CPUs' workers to 1/F of a CPU by
	// CFS bandwidth control: exact, whatever else runs there.
	SlowByBandwidth = "bandwidth"
	// SlowByLoad puts F-1 competing processes on each slow CPU: for
	// machines without the cpu controller; a worker gets about 1/F.
	SlowByLoad = "load"
)

// quotaUS is the slow workers' CPU time per period: the least the kernel
// takes, 1 ms, so that the period, F ms, is as short as it can be and a
// chunk of a few milliseconds sees the emulated speed, not a stretch at
// full speed followed by a stall.
const quotaUS = 1000

// witnessProbe is how long the speed probe lasts on a fast CPU: on a CPU
// slowed to a third it spans thirty periods of the bandwidth limit, so
// where in a period it starts moves its rate by a few percent at most.
const witnessProbe = 30 * time.Millisecond

// slowCPUs makes the emulated slow CPUs slow, by one of the two ways.
type slowCPUs struct {
	cpus   cpuset.Set
	work   int              // work: each chunk on a slow CPU runs this many times
	limit  *bandwidth.Limit // bandwidth: the slow workers' cgroup
	rest   *bandwidth.Limit // bandwidth: the rest of corepin, unlimited
	pacers []*bandwidth.Pacer
	load   *load // load: the competing processes
}

// startSlow slows res.SlowCPUs as cfg.SlowBy asks ("": by work) and
// completes res.How with the way.
func startSlow(cfg PartitionConfig, res *PartitionResult) (*slowCPUs, error) {
	s := &slowCPUs{cpus: res.SlowCPUs}
	f := cfg.Slowdown
	by := cfg.SlowBy
	if by == "" || by == SlowByWork {
		s.work = f
		res.SlowBy = SlowByWork
		res.How += fmt.Sprintf(" to 1/%d by work: a chunk that starts on a slow CPU (getcpu) is stretched to %d times its CPU time"+
			" by its thread spinning after it, so the slowdown is smooth and exact and stays with the CPU, for unpinned workers too", f, f)
		return s, nil
	}
	if by == SlowByBandwidth {
		if err := s.startBandwidth(f); err != nil {
			return nil, fmt.Errorf("--slow-by bandwidth: %w", err)
		}
		res.SlowBy, res.QuotaUS, res.PeriodUS = SlowByBandwidth, quotaUS, quotaUS*f
		res.How += fmt.Sprintf(" to 1/%d by CFS bandwidth: their workers' cgroup may run %d µs of every %d µs;"+
			" it and the rest of corepin have the largest CPU weight, so that the machine's other work hardly takes from either;"+
			" the slowdown goes with those workers wherever they run, also unpinned (a real slow core, or --slow-by work or load, stays where it is)",
			f, quotaUS, quotaUS*f)
		return s, nil
	}
	l, err := startLoad(cfg.Self, res.SlowCPUs, f-1, false)
	if err != nil {
		return nil, fmt.Errorf("starting the competing processes: %w", err)
	}
	s.load = l
	res.SlowBy = SlowByLoad
	res.How += fmt.Sprintf(" to about 1/%d by %d competing CPU-bound processes each, of equal weight", f, f-1)
	time.Sleep(50 * time.Millisecond)
	return s, nil
}

// startBandwidth makes the slow workers' cgroup, limited to 1/f of a CPU,
// with a pacer on each slow CPU, and moves the rest of corepin into an
// unlimited one; both have the largest weight. cgroup v2, where one
// thread cannot join a cgroup apart from its process, is refused.
func (s *slowCPUs) startBandwidth(f int) (err error) {
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	if s.rest, err = bandwidth.New(-1, quotaUS*f); err != nil {
		return err
	}
	if s.rest.V2() {
		return errors.New("cgroup v2 moves a whole process into a cgroup, and the fast CPUs' workers are threads of the same one")
	}
	if err = s.rest.MaxWeight(); err != nil {
		return err
	}
	if err = s.rest.AddProcess(os.Getpid()); err != nil {
		return err
	}
	if s.limit, err = bandwidth.New(quotaUS, quotaUS*f); err != nil {
		return err
	}
	if err = s.limit.MaxWeight(); err != nil {
		return err
	}
	for _, cpu := range s.cpus.CPUs() {
		p, err := s.limit.Pace(cpu)
		if err != nil {
			return err
		}
		s.pacers = append(s.pacers, p)
	}
	return nil
}

func (s *slowCPUs) pacerCount() int {
	if s == nil {
		return 0
	}
	return len(s.pacers)
}

// body is the experiment's body as the workers run it: with the slowdown
// by work, a chunk that starts on a slow CPU runs once and then its
// thread spins until its own CPU clock says the chunk cost s.work times
// what it did. Running the chunk again instead would find its elements
// in the cache and cost less than the first time (a 512K-element chunk
// done 3 times took 2.1 times one pass here); the thread's clock leaves
// out what others took of the CPU meanwhile, as a slower core would.
func (s *slowCPUs) body(do func(lo, hi int)) func(lo, hi int) {
	if s == nil || s.work < 2 {
		return do
	}
	return func(lo, hi int) {
		cpu, err := sched.GetCPU()
		if err != nil || !s.cpus.Contains(cpu) {
			do(lo, hi)
			return
		}
		t0, err := sched.ThreadCPUTime(0)
		do(lo, hi)
		t1, err1 := sched.ThreadCPUTime(0)
		if err != nil || err1 != nil {
			return
		}
		for end := t0 + time.Duration(s.work)*(t1-t0); t1 < end && err1 == nil; {
			t1, err1 = sched.ThreadCPUTime(0)
		}
	}
}

// join puts a thread that works for a slow CPU under the limit; with the
// load there is nothing to do.
func (s *slowCPUs) join(tid int) error {
	if s == nil || s.limit == nil {
		return nil
	}
	if err := s.limit.AddThread(tid); err != nil {
		return fmt.Errorf("moving a slow CPU's worker into its bandwidth limit: %w", err)
	}
	return nil
}

// setup is partition.Options.Setup for workers on cpus, one each: those
// of the slow CPUs join the limit. Real slow cores need none.
func (s *slowCPUs) setup(cpus cpuset.Set) func(worker, tid int) error {
	if s == nil || s.limit == nil {
		return nil
	}
	list := cpus.CPUs()
	return func(worker, tid int) error {
		if s.cpus.Contains(list[worker]) {
			return s.join(tid)
		}
		return nil
	}
}

// stop ends the emulation and removes what it made: the slow workers'
// cgroup first, whose living members go back to the rest's, then the
// rest's, which puts corepin back where it was.
func (s *slowCPUs) stop() error {
	if s == nil {
		return nil
	}
	for _, p := range s.pacers {
		p.Stop()
	}
	s.pacers = nil
	s.load.Stop()
	s.load = nil
	var first error
	for _, l := range []*bandwidth.Limit{s.limit, s.rest} {
		if l == nil {
			continue
		}
		if err := l.Remove(); err != nil && first == nil {
			first = err
		}
	}
	s.limit, s.rest = nil, nil
	return first
}

// witness measures how fast a slow CPU runs against a fast one: the speed
// probe on each, as a worker of that CPU runs there. It returns the slow
// rate over the fast; with the slowdown by work, which the probe does not
// do, that over the work's factor.
func (s *slowCPUs) witness(p speed.Probe, fast, slow int) (float64, error) {
	f, err := s.read(p, fast, false)
	if err != nil {
		return 0, err
	}
	sl, err := s.read(p, slow, true)
	if err != nil {
		return 0, err
	}
	return sl.Rate / f.Rate / float64(max(s.work, 1)), nil
}

// read runs the probe on a thread of its own on cpu, as a worker of a
// slow CPU (under the limit, where slow CPUs are slowed by bandwidth) or
// of a fast one.
func (s *slowCPUs) read(p speed.Probe, cpu int, slow bool) (speed.Reading, error) {
	var r speed.Reading
	var joinErr error
	err := speed.On(cpuset.Of(cpu), func() {
		if slow {
			if joinErr = s.join(sched.Gettid()); joinErr != nil {
				return
			}
		}
		r = p.Read()
	})
	if err == nil {
		err = joinErr
	}
	return r, err
}
