package session

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

var taint struct {
	sync.Mutex
	why string
}

// Tainted returns ErrTainted, with the reason, after a restore failed in
// this process; nil otherwise.
func Tainted() error {
	taint.Lock()
	defer taint.Unlock()
	if taint.why == "" {
		return nil
	}
	return fmt.Errorf("%w (%s)", ErrTainted, taint.why)
}

// ClearTaint lets new sessions begin again after a failed restore was
// dealt with.
func ClearTaint() {
	taint.Lock()
	taint.why = ""
	taint.Unlock()
}

func setTaint(why string) {
	taint.Lock()
	taint.why = why
	taint.Unlock()
}

// Run runs fn on a new locked thread under a session: Begin, the
// acceptance check, fn (a panic in it is recovered into the report),
// Finish. The thread goes back to the Go scheduler only when the restore
// was verified; otherwise its goroutine exits still locked, so the runtime
// destroys the thread, and new sessions are refused until ClearTaint.
//
// The error is fn's, ErrNotAccepted, ErrRestoreFailed or ErrTainted; the
// report is returned in every case where a session began.
func Run(opts Options, fn func(*Session) error) (*Report, error) {
	type outcome struct {
		report *Report
		err    error
	}
	done := make(chan outcome, 1)
	go func() {
		runtime.LockOSThread()
		s, err := Begin(opts)
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
			setTaint(fmt.Sprintf("thread %d: %s", s.tid, res.Failure()))
			done <- outcome{&rep, fmt.Errorf("%w: %s", ErrRestoreFailed, res.Failure())}
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

// Failure names the first restore step that failed and why ("attributes:
// sched_setattr: operation not permitted"), or "" when none did.
func (r RestoreResult) Failure() string {
	for _, st := range r.Steps {
		if !st.OK {
			msg := st.Error
			if msg == "" {
				msg = st.Mismatch
			}
			return st.What + ": " + msg
		}
	}
	if r.Done && !r.OK {
		return "unknown failure"
	}
	return ""
}
