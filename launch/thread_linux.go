package launch

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/internal/account"
	"corepin.dev/corepin/internal/busy"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/tree"
	"corepin.dev/corepin/internal/watch"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/session"
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
	var othersTime *evidence.Others
	var preemptors []evidence.Preemptor
	var preemptorsErr string
	var slices []evidence.Slice
	var sw *evidence.Switches
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
		defer meter.Close()
		trace := tree.StartTrace(cfg.OnCPU.oncpu())
		busyBefore, haveBusy := meter.Read()
		before, _ := threadUsage()
		started := time.Now()
		workErr := work(s)
		rep.Child.WallS = time.Since(started).Seconds()
		// The tracer's snapshot comes before the reading, as in
		// tree.StartTrace; it runs on the work's thread,
		// inside the window, and what corepin does there is not others'.
		trace.End()
		busyAfter, ok := meter.Read()
		if ok && haveBusy {
			othersTime = account.OthersBetween(busyBefore, busyAfter, busyAfter.Self-busyBefore.Self, 0, "thread", true)
		}
		preemptors, preemptorsErr = trace.Preemptors(target, func(_, t int) bool { return t == s.TID() })
		if ok && haveBusy {
			slices, sw = trace.Switches(busyBefore.At, busyAfter.At, func(_, t int) bool { return t == s.TID() })
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
	account.Account(&rep.Scheduling, target)
	rep.Sharing.Others = othersTime
	rep.Sharing.Preemptors, rep.Sharing.PreemptorsError = preemptors, preemptorsErr
	rep.Slices, rep.Sharing.Switches = slices, sw
	return rep, err
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
