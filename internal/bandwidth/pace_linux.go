package bandwidth

import (
	"errors"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
)

// PaceInterval is how often a pacer wakes. The kernel charges a running
// thread's time to its cgroup's quota, and throttles it, only when the
// CPU's scheduler looks at it: at its tick (every 4 ms at HZ=250) or when
// another task of the cgroup wakes there. Left alone, a thread held to
// 1 ms of every 3 ms therefore runs a whole tick, 4 ms, and then waits
// 8 ms to pay it back; with a pacer it runs its 1 ms, to within 250 µs,
// and waits 2 ms, so that even a few milliseconds of work see the
// limit's speed.
const PaceInterval = 250 * time.Microsecond

// Pacer is a thread of the cgroup, pinned to one CPU, that wakes there
// every PaceInterval and does nothing else.
type Pacer struct {
	stop atomic.Bool
	done chan struct{}
}

// Pace starts a pacer on cpu. It is cgroup v1 only: on v2 its thread
// would move the whole process into the cgroup.
func (l *Limit) Pace(cpu int) (*Pacer, error) {
	if l.v2 {
		return nil, errors.New("a pacer needs cgroup v1, where one thread joins a cgroup alone")
	}
	p := &Pacer{done: make(chan struct{})}
	ready := make(chan error)
	go func() {
		release := sched.Throwaway() // its mask and cgroup end with the thread
		defer release()
		defer close(p.done)
		err := sched.SetAffinity(0, cpuset.Of(cpu))
		if err == nil {
			err = l.AddThread(sched.Gettid())
		}
		ready <- err
		if err != nil {
			return
		}
		ts := unix.NsecToTimespec(PaceInterval.Nanoseconds())
		for !p.stop.Load() {
			unix.Nanosleep(&ts, nil)
		}
	}()
	if err := <-ready; err != nil {
		<-p.done
		return nil, err
	}
	return p, nil
}

// Stop ends the pacer's thread and waits for it.
func (p *Pacer) Stop() {
	if p == nil {
		return
	}
	p.stop.Store(true)
	<-p.done
}
