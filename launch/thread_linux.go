package launch

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/busy"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/oncpu"
	"corepin.dev/corepin/oncpu/timeline"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/watch"
)

// RunThread runs work on a session thread of this process, placed as the
// request asks: the in-process form of Run, for work that is Go code in
// corepin (corepin run --isolation thread, the QoS experiment's key
// thread). As for a command, every other thread of corepin (the runtime's,
// the sampler's, a progress display's) is kept off the target while the
// work runs, the watcher follows the work's thread, and the report is the
// same, with Start "thread" and the thread's own times as the child's.
//
// The thread is put back afterwards, or destroyed where that fails, as
// session.Run decides. The error is session.Run's: the work's,
// ErrNotAccepted (the report's Refused says why) or ErrRestoreFailed.
func RunThread(ctx context.Context, cfg ThreadConfig, work func(*session.Session) error) (*Report, error) {
	if err := cfg.Request.Validate(); err != nil {
		return nil, err
	}
	target := cfg.Request.Mask()
	rep := &Report{Scheduling: evidence.Scheduling{Start: StartThread}}
	restoreParent := keepOff(cfg.Root, target, &rep.Parent)
	defer func() { rep.Parent.Restored = restoreParent() == nil }()
	var othersTime *Others
	var preemptors []Preemptor
	var preemptorsErr string
	var slices []timeline.Slice
	var sw *Switches
	sr, err := session.Run(cfg.Request, func(s *session.Session) error {
		rep.Child.PID, rep.Child.Started = os.Getpid(), true
		var watcher *watch.Watcher
		if cfg.WatchPeriod > 0 {
			sr := s.Report()
			opts := watchOptions(&sr, os.Getpid(), target, cfg.WatchPeriod)
			opts.TIDs, opts.Children = []int{s.TID()}, false
			var werr error
			if watcher, werr = watch.Start(ctx, opts); werr != nil {
				rep.WatchError = werr.Error()
			}
		}
		// The target's busy time is read on the work's own thread, on the
		// target, just before and after the work: the thread's CPU clock
		// between the readings is the work's part of it, the rest went to
		// others.
		h, _ := cgroupfs.Find(cfg.Root)
		meter := busy.NewMeter(cfg.Root, h, target)
		trace := startTrace(cfg.OnCPU)
		busyBefore, haveBusy := meter.Read()
		before, _ := threadUsage()
		started := time.Now()
		workErr := work(s)
		rep.Child.WallS = time.Since(started).Seconds()
		// The tracer's snapshot comes before the reading, as in
		// startTrace (see tree.account); it runs on the work's thread,
		// inside the window, and what corepin does there is not others'.
		trace.end()
		busyAfter, ok := meter.Read()
		if ok && haveBusy {
			othersTime = judge.OthersBetween(busyBefore, busyAfter, busyAfter.Self-busyBefore.Self, 0, "thread", true)
		}
		preemptors, preemptorsErr = trace.preemptors(target, s.TID())
		if ok && haveBusy {
			slices, sw = trace.switches(busyBefore.At, busyAfter.At, s.TID())
		}
		if after, err := threadUsage(); err == nil {
			rep.Child.UserS = after.user - before.user
			rep.Child.SysS = after.sys - before.sys
		}
		if watcher != nil {
			res := watcher.Stop()
			rep.Watch = &res
		}
		return workErr
	})
	if sr == nil {
		return nil, err
	}
	rep.Session = *sr
	if !rep.Accept.OK {
		rep.Refused = rep.Accept.Why
		return rep, err
	}
	judge.Account(&rep.Scheduling, target)
	rep.Sharing.Others = othersTime
	rep.Sharing.Preemptors, rep.Sharing.PreemptorsError = preemptors, preemptorsErr
	rep.Slices, rep.Sharing.Switches = slices, sw
	return rep, err
}

// trace is the on-CPU tracer's account of the target from just before
// the work; err says why there is none.
type trace struct {
	tracer        *oncpu.Tracer
	before, after oncpu.Account
	err           error
}

// startTrace snapshots the tracer, if any, before the work.
func startTrace(tracer *oncpu.Tracer) *trace {
	t := &trace{tracer: tracer}
	if tracer != nil {
		t.before, t.err = tracer.Snapshot()
	}
	return t
}

// end snapshots the tracer, if any, after the work.
func (t *trace) end() {
	if t.tracer != nil && t.err == nil {
		t.after, t.err = t.tracer.Snapshot()
	}
}

// preemptors names who else took time on the target between startTrace
// and end, the work's own thread tid aside, or says why it cannot (""
// without a tracer).
func (t *trace) preemptors(target cpuset.Set, tid int) ([]Preemptor, string) {
	if t.tracer == nil {
		return nil, ""
	}
	if t.err != nil {
		return nil, t.err.Error()
	}
	return judge.Preemptors(ran(t.after.Since(t.before)), target, func(_, t int) bool { return t == tid }), ""
}

// switches is who ran on the target between the readings from and to,
// slice by slice: the thread tid's are the work's. nil without the
// tracer.
func (t *trace) switches(from, to time.Duration, tid int) ([]timeline.Slice, *Switches) {
	if t.tracer == nil || t.err != nil {
		return nil, nil
	}
	return switches(t.tracer, t.before, t.after, from, to, func(_, t int) bool { return t == tid })
}

type usage struct{ user, sys float64 }

// threadUsage is the calling thread's CPU time (getrusage RUSAGE_THREAD).
func threadUsage() (usage, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return usage{}, err
	}
	return usage{
		user: float64(ru.Utime.Sec) + float64(ru.Utime.Usec)/1e6,
		sys:  float64(ru.Stime.Sec) + float64(ru.Stime.Usec)/1e6,
	}, nil
}
