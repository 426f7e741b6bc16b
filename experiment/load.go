// Package experiment runs the two experiments of corepin's seeds on the
// machine at hand: a key thread under heavy load at a low versus a high QoS
// level, and static versus dynamic partitioning of a parallel loop on
// asymmetric cores (real ones, or slow cores emulated by competing
// processes).
package experiment

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
)

// SpinArg is the reserved first argument that makes corepin a competing
// CPU-bound process; main dispatches it before anything else.
const SpinArg = "__corepin-spin"

// SpinMain spins until killed. It asks for the shortest EEVDF slice
// (Linux 6.12+; elsewhere the request is refused and ignored): a slow CPU
// emulated by time-sharing then hands its share out in 0.1 ms turns, so a
// worker there is slowed evenly, as on a truly slow core, instead of
// stalling a barrier for whole multi-millisecond slices.
func SpinMain() {
	runtime.LockOSThread()
	sched.SetAttr(0, sched.Attr{Policy: sched.Normal, Runtime: 100_000})
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			fmt.Println(x)
		}
	}
}

// load is a set of competing CPU-bound processes, each pinned to one CPU.
// They are processes, not goroutines: goroutines would also compete for the
// Go runtime's Ps, and the kernel's scheduler (nice, weights) would no
// longer be what decides the shares.
type load struct {
	procs []*os.Process
	stop  chan struct{}
	done  chan struct{}
}

// startLoad starts n spinning processes on each CPU of cpus, at the
// default policy and nice value. They are forked from a locked thread kept
// for the purpose, with the parent-death signal set: should corepin die,
// they die with that thread.
func startLoad(self string, cpus cpuset.Set, n int) (*load, error) {
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	l := &load{stop: make(chan struct{}), done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		release := sched.Throwaway() // the thread's mask changes
		defer close(l.done)
		defer release()
		err := l.spawn(self, cpus, n)
		started <- err
		if err == nil {
			<-l.stop
		}
		for _, p := range l.procs {
			p.Kill()
			p.Wait()
		}
	}()
	if err := <-started; err != nil {
		<-l.done
		return nil, err
	}
	return l, nil
}

func (l *load) spawn(self string, cpus cpuset.Set, n int) error {
	for _, cpu := range cpus.CPUs() {
		// A child inherits the forking thread's mask: pinned from birth.
		if err := sched.SetAffinity(0, cpuset.Of(cpu)); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			return fmt.Errorf("pinning the load to CPU %d: %w", cpu, err)
		}
		for range n {
			cmd := exec.Command(self, SpinArg)
			cmd.SysProcAttr = childAttr()
			cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
			if err := cmd.Start(); err != nil {
				return fmt.Errorf("starting a competing process: %w", err)
			}
			l.procs = append(l.procs, cmd.Process)
		}
	}
	return nil
}

// Stop ends the load and waits for its processes.
func (l *load) Stop() {
	if l == nil {
		return
	}
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
}
