package session

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	"corepin.dev/corepin/results/evidence"
)

// Run runs fn on a new locked thread under a session: Begin, the
// acceptance check, fn (a panic in it is recovered into the report),
// Finish.
//
// Run is where corepin decides what happens to a thread whose restore
// failed (a nice value raised without the privilege to lower it again, a
// mask a cpuset no longer allows): the thread is destroyed. Its goroutine
// exits still locked, so the runtime ends the thread with its changes (the
// main thread, which the runtime never ends, is wedged instead, which
// serves as well). Nothing changed is left behind and no later goroutine
// can run on it, so the process is not tainted: later sessions begin as
// usual, and the report and ErrRestoreFailed say what happened. Every
// starter in corepin (launch's forked start, its in-process thread, the
// experiments) goes through Run for that reason.
//
// The error is fn's, ErrNotAccepted, ErrRestoreFailed (joined with fn's
// error when fn failed too) or a validation error; the report is returned
// in every case where a session began.
func Run(req Request, fn func(*Session) error) (*evidence.Session, error) {
	type outcome struct {
		report *evidence.Session
		err    error
	}
	done := make(chan outcome, 1)
	go func() {
		runtime.LockOSThread()
		s, err := Begin(req)
		if err != nil {
			runtime.UnlockOSThread() // nothing was changed
			done <- outcome{nil, err}
			return
		}
		var fnErr error
		if s.Accepted() {
			fnErr = s.call(fn)
		} else {
			fnErr = fmt.Errorf("%w: %s", ErrNotAccepted, s.report.Accept.Why)
		}
		res := s.Finish()
		rep := s.Report()
		if !res.OK {
			restoreErr := fmt.Errorf("%w: %s", ErrRestoreFailed, res.Failure())
			done <- outcome{&rep, errors.Join(restoreErr, fnErr)}
			return // still locked: the thread dies with the goroutine
		}
		runtime.UnlockOSThread()
		done <- outcome{&rep, fnErr}
	}()
	o := <-done
	return o.report, o.err
}

// call runs the workload and turns a panic into the report and an error.
func (s *Session) call(fn func(*Session) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			s.report.Panic = fmt.Sprint(v)
			err = fmt.Errorf("workload panicked: %v\n%s", v, debug.Stack())
		}
	}()
	return fn(s)
}
