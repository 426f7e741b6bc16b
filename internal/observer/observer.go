// Package observer runs corepin's periodic observers, the telemetry sampler
// and the watcher, the one way the design asks for: on a thread of their
// own, kept off the CPUs they observe and their SMT siblings ("the observer
// stays off the measured core": a sibling shares the core's execution units
// and caches), thrown away at the end rather than handed back with a
// changed mask. Where no other core is allowed, the loop shares the core
// (or, with no other CPU at all, the CPU) and says so instead of refusing
// to run.
package observer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

// Funcs are the loop's work. All run on the loop's thread.
type Funcs struct {
	// Prepare runs once on the loop's new thread before it moves off the
	// avoided CPUs: the moment to raise its priority, while it still runs
	// where it was born and not among the threads it may have to compete
	// with. May be nil.
	Prepare func()
	First   func() // once, as soon as the thread is placed; may be nil
	Tick    func() // once per period
	Last    func() // once, when the loop ends; nil means Tick
}

// Loop is a running observer.
type Loop struct {
	// CPUs is where the loop's thread may run. Shared says it could not
	// keep off the avoided CPUs because no other CPU is allowed to it;
	// OnCore that it keeps off them but runs on an SMT sibling, because no
	// other core is allowed to it.
	CPUs   cpuset.Set
	Shared bool
	OnCore bool
	avoid  cpuset.Set
	cancel context.CancelFunc
	done   chan struct{}
}

// Start places a new thread off avoid and its SMT siblings (read from this
// machine's sysfs) and calls f on it every period until ctx ends or Stop is
// called. It returns once the thread is placed.
func Start(ctx context.Context, period time.Duration, avoid cpuset.Set, f Funcs) (*Loop, error) {
	l := &Loop{done: make(chan struct{}), avoid: avoid}
	// Unknown siblings leave the CPUs themselves to avoid: the loop still
	// keeps off the work's thread.
	core, _ := topology.CoreSiblings("/", avoid)
	ctx, l.cancel = context.WithCancel(ctx)

	placed := make(chan error, 1)
	go func() {
		defer close(l.done)
		release := sched.Throwaway() // the thread's mask changes
		defer release()
		if f.Prepare != nil {
			f.Prepare()
		}
		p, err := sched.KeepOff(avoid, core)
		if errors.Is(err, sched.ErrNoOtherCPU) {
			l.Shared, err = true, nil
		}
		l.CPUs, l.OnCore = p.CPUs, p.OnCore
		placed <- err
		if err != nil {
			return
		}
		l.run(ctx, period, f)
	}()
	if err := <-placed; err != nil {
		l.cancel()
		<-l.done
		return nil, err
	}
	return l, nil
}

func (l *Loop) run(ctx context.Context, period time.Duration, f Funcs) {
	if f.First != nil {
		f.First()
	}
	last := func() {
		if f.Last != nil {
			f.Last()
		} else {
			f.Tick()
		}
	}
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			last()
			return
		case <-ticker.C:
			f.Tick()
		}
	}
}

// Stop ends the loop and waits until its last call has returned.
func (l *Loop) Stop() {
	l.cancel()
	<-l.done
}

// SharedNote is the note a user of the loop records when it had to share
// the measured CPUs ("the sampler shares CPUs 1 with the work: ...") or
// their cores, or "" when it did not.
func (l *Loop) SharedNote(who string) string {
	switch {
	case l.Shared:
		return fmt.Sprintf("the %s shares CPUs %s with the work: there is no other CPU it may use", who, l.CPUs)
	case l.OnCore:
		return fmt.Sprintf("the %s runs on CPUs %s, SMT siblings of the work's CPUs %s: there is no other core it may use", who, l.CPUs, l.avoid)
	}
	return ""
}
