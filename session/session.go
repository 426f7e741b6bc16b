// Package session puts one thread — the one that does the work — on a
// chosen CPU with the scheduling it asks for, proves it by reading
// everything back, keeps it there during the run, and restores what it
// found at the end.
//
// A session lives on one OS thread. Begin must be called on a goroutine that
// has called runtime.LockOSThread, and everything after it on that same
// goroutine. The order is the one benchmark ports on phones follow:
//
//	capture   affinity, policy, priority, nice, flags, uclamp, QoS
//	request   affinity first, then the ladder of attributes, then QoS
//	read back the effective mask, the CPU, the attributes, the QoS level
//	accept    a rule over the report decides whether the work may run
//	observe   read back only, at non-timed boundaries; refresh re-asserts
//	finish    restore QoS, attributes, affinity, each verified
//
// A thread whose restore failed must never go back to the Go scheduler:
// its goroutine must exit still locked, so that the runtime destroys it.
// Run does all of this.
package session

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// Session is a thread's scheduling, from capture to restore.
type Session struct {
	req      Request
	rule     Rule
	tid      int
	target   cpuset.Set
	accepted *Step      // the ladder step that held, if any
	mask     cpuset.Set // the effective mask after the request
	changed  struct{ affinity, attr, uclamp, qos bool }
	lastCPU  int
	report   evidence.Session
	// captured is the thread's attributes as they were before the session
	// changed them, in full (the report keeps what a reader needs); zero
	// when they could not be read.
	captured sched.Attr
	// unhold ends the thread's hold (sched.HoldThread), which keeps runs
	// that move corepin's threads off their targets from moving this one.
	unhold func()
}

// Errors of the package.
var (
	// ErrNotAccepted is returned by Run when the acceptance rule refused.
	ErrNotAccepted = errors.New("scheduling not accepted")
	// ErrRestoreFailed is returned by Run when a restore failed; the
	// thread was destroyed.
	ErrRestoreFailed = errors.New("restoring the thread's scheduling failed; the thread was destroyed")
	// ErrWrongThread is returned when a session is used from a thread
	// other than its own.
	ErrWrongThread = errors.New("session used from another thread than its own (was the goroutine locked with runtime.LockOSThread?)")
)

// Begin captures the calling thread's state and makes the requests. The
// goroutine must be locked to its thread. The returned session holds the
// report; call Accepted before running the work and Finish at the end,
// whatever happens in between.
func Begin(req Request) (*Session, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	req.Mode = req.ModeOrDefault()
	s := &Session{req: req, rule: req.Rule(), tid: sched.Gettid(), lastCPU: -1, target: req.Mask()}
	s.report.TID = s.tid
	s.unhold = sched.HoldThread(s.tid)
	s.report.Target = evidence.TargetReport{Mode: req.Mode, CPU: req.CPU, CPUs: s.target}
	s.report.Capture, s.captured = capture()
	s.requestAffinity()
	s.requestLadder()
	s.requestQoS()
	s.report.Readback = s.readback()
	s.lastCPU = s.report.Readback.CPU
	s.mask = s.report.Readback.CPUs
	ok, why := s.rule.Check(&s.report)
	s.report.Accept = evidence.AcceptResult{Rule: s.rule.String(), OK: ok, Why: why}
	return s, nil
}

// Accepted reports whether the acceptance rule let the work run.
func (s *Session) Accepted() bool { return s.report.Accept.OK }

// TID is the id of the session's thread.
func (s *Session) TID() int { return s.tid }

// Report returns a copy of the report as it stands.
func (s *Session) Report() evidence.Session {
	r := s.report
	r.Ladder.Steps = append([]evidence.StepResult(nil), r.Ladder.Steps...)
	r.Restore.Steps = append([]evidence.RestoreStep(nil), r.Restore.Steps...)
	return r
}

// onOwnThread guards every call after Begin.
func (s *Session) onOwnThread() error {
	if sched.Gettid() != s.tid {
		return fmt.Errorf("%w: session on thread %d, called from %d", ErrWrongThread, s.tid, sched.Gettid())
	}
	return nil
}

// capture reads the calling thread's state: as the report keeps it, and
// its attributes in full, which the restore writes back.
func capture() (evidence.Snapshot, sched.Attr) {
	var snap evidence.Snapshot
	var attr sched.Attr
	var err error
	if snap.CPUs, err = sched.GetAffinity(0); err != nil {
		snap.Missing = append(snap.Missing, "affinity: "+err.Error())
	}
	if attr, err = sched.GetAttr(0); err != nil {
		snap.Missing = append(snap.Missing, "attributes: "+err.Error())
	} else {
		a := attr
		snap.Policy, snap.Priority, snap.Flags, snap.SliceNs = policyOf(a.Policy), a.Priority, a.Flags, a.Runtime
		if sched.Uclamp().Supported {
			snap.Uclamp = evidence.UclampState{Supported: true, Min: &a.UtilMin, Max: &a.UtilMax}
		}
	}
	if snap.Nice, err = sched.GetNice(0); err != nil {
		snap.Missing = append(snap.Missing, "nice: "+err.Error())
	}
	if qos.NodeAvailable() {
		level, known, err := qos.Get()
		switch {
		case err != nil:
			snap.Missing = append(snap.Missing, "qos: "+err.Error())
		case known:
			name := level.String()
			snap.QoS, snap.QoSKnown = &name, true
		default:
			snap.QoSKnown = true // known to be unset
		}
	}
	snap.Complete = len(snap.Missing) == 0
	return snap, attr
}

func (s *Session) requestAffinity() {
	s.report.Affinity.Asked = s.target
	if err := sched.SetAffinity(0, s.target); err != nil {
		s.report.Affinity.Errno, s.report.Affinity.Error = errnoOf(err), err.Error()
		return
	}
	s.changed.affinity = true
	s.report.Affinity.OK = true
}

func (s *Session) requestLadder() {
	s.report.Ladder = evidence.LadderResult{Name: s.req.Ladder.name, Steps: []evidence.StepResult{}}
	for i, step := range s.req.Ladder.steps {
		r := s.try(step)
		r.Step = i + 1
		s.report.Ladder.Steps = append(s.report.Ladder.Steps, r)
		if r.Accepted {
			s.report.Ladder.AcceptedStep = i + 1
			accepted := step.clone()
			s.accepted = &accepted
			return
		}
	}
}

// try asks for one step and checks its read-back. A step that the kernel
// took only in part is undone before the next step is tried, so that "keep
// the current policy" in a later step means the policy the thread came
// with.
func (s *Session) try(step Step) evidence.StepResult {
	r := evidence.StepResult{Asked: step.String()}
	if step.Realtime() && !s.req.AllowRealtime {
		r.Skipped = "realtime is not allowed (enable it explicitly)"
		return r
	}
	err := s.apply(step)
	if err != nil {
		r.Errno, r.Error = errnoOf(err), err.Error()
	} else if mismatch := s.matches(step); mismatch != "" {
		r.Mismatch = mismatch
	} else {
		r.Accepted = true
		return r
	}
	if s.changed.attr || s.changed.uclamp {
		if err := s.restoreAttributes(); err != nil {
			r.Error += "; undoing the step failed: " + err.Error()
		}
	}
	return r
}

// apply sends a step: policy and nice in one call, uclamp in a call of its
// own, because a kernel without uclamp refuses a combined request whole.
func (s *Session) apply(step Step) error {
	captured := s.captured
	keepFlags := captured.Flags & sched.FlagResetOnFork
	if step.Policy != nil || step.Nice != nil {
		a := sched.Attr{Flags: keepFlags}
		if step.Policy != nil {
			a.Policy, a.Priority = *step.Policy, step.Priority
		} else {
			a.Policy = fairPolicy(captured.Policy)
		}
		if step.Nice != nil && !a.Policy.Realtime() {
			a.Nice = *step.Nice
		}
		if err := sched.SetAttr(0, a); err != nil {
			return err
		}
		s.changed.attr = true
	}
	if step.Uclamp != nil {
		if err := sched.SetUclamp(0, step.Uclamp.Min, step.Uclamp.Max, keepFlags != 0); err != nil {
			return err
		}
		s.changed.uclamp = true
	}
	return nil
}

// fairPolicy is the policy a nice-only step uses: the thread's own when it
// is a fair one, else SCHED_OTHER.
func fairPolicy(p sched.Policy) sched.Policy {
	if p == sched.Batch {
		return p
	}
	return sched.Normal
}

// matches reads the attributes back and says what differs from the step.
func (s *Session) matches(step Step) string {
	a, err := sched.GetAttr(0)
	if err != nil {
		return "read-back failed: " + err.Error()
	}
	if step.Policy != nil && (a.Policy != *step.Policy || a.Priority != step.Priority) {
		return fmt.Sprintf("policy reads back as %s:%d", a.Policy, a.Priority)
	}
	if step.Nice != nil && !a.Policy.Realtime() && a.Nice != *step.Nice {
		return fmt.Sprintf("nice reads back as %d", a.Nice)
	}
	if step.Uclamp != nil {
		if !sched.Uclamp().Supported {
			return "uclamp cannot be read back on this kernel"
		}
		if a.UtilMin != step.Uclamp.Min || a.UtilMax != step.Uclamp.Max {
			return fmt.Sprintf("uclamp reads back as %d/%d", a.UtilMin, a.UtilMax)
		}
	}
	return ""
}

func (s *Session) requestQoS() {
	if s.req.QoS == nil {
		return
	}
	level := *s.req.QoS
	r := &evidence.QoSResult{Requested: level.String(), Backend: "harmonyos-node"}
	s.report.QoS = r
	if !qos.NodeAvailable() {
		r.Backend = "linux-sched"
		r.Error = "no QoS node on this kernel; the level is expressed by its ladder of attributes"
		return
	}
	if !s.report.Capture.QoSKnown {
		// Without knowing the old level there is nothing
		// to restore to, so the level is not changed.
		r.Error = "the thread's current QoS could not be read; not changed"
		return
	}
	if err := qos.Set(level); err != nil {
		r.Errno, r.Error = errnoOf(err), err.Error()
		return
	}
	s.changed.qos = true
}

// readback asks the kernel where the thread is and how it is scheduled.
func (s *Session) readback() evidence.Readback {
	rb := evidence.Readback{CPU: -1}
	var err error
	if rb.CPUs, err = sched.GetAffinity(0); err != nil {
		rb.Errors = append(rb.Errors, err.Error())
	}
	if rb.CPU, err = sched.GetCPU(); err != nil {
		rb.Errors = append(rb.Errors, err.Error())
	}
	if a, err := sched.GetAttr(0); err != nil {
		rb.Errors = append(rb.Errors, err.Error())
	} else {
		rb.Policy, rb.Priority, rb.Nice, rb.SliceNs = policyOf(a.Policy), a.Priority, a.Nice, a.Runtime
		if a.Policy.Realtime() {
			rb.SliceNs = 0
		}
		if sched.Uclamp().Supported {
			rb.Uclamp = evidence.UclampState{Supported: true, Min: &a.UtilMin, Max: &a.UtilMax}
		}
	}
	if qos.NodeAvailable() {
		if level, known, err := qos.Get(); err != nil {
			rb.Errors = append(rb.Errors, err.Error())
		} else if known {
			name := level.String()
			rb.QoS = &name
			if s.report.QoS != nil {
				s.report.QoS.Effective = &name
			}
		}
	}
	rb.ExactAtReadback = rb.CPUs.Equal(cpuset.Of(s.req.CPU)) && rb.CPU == s.req.CPU
	rb.InTargetGroup = !rb.CPUs.IsEmpty() && rb.CPUs.IsSubsetOf(s.target) && s.target.Contains(rb.CPU)
	return rb
}

// Observe reads everything back without asking for anything, for the
// non-timed boundaries of a long run. It counts migrations between calls.
func (s *Session) Observe() (evidence.Readback, error) {
	if err := s.onOwnThread(); err != nil {
		return evidence.Readback{}, err
	}
	rb := s.readback()
	s.report.Observations++
	if s.lastCPU >= 0 && rb.CPU >= 0 && rb.CPU != s.lastCPU {
		s.report.Migrations++
	}
	s.lastCPU = rb.CPU
	s.report.Readback = rb
	return rb, nil
}

// Refresh reads back and asks again for whatever drifted: the mask, or the
// accepted ladder step. It returns how many requests it made again.
func (s *Session) Refresh() (int, error) {
	rb, err := s.Observe()
	if err != nil {
		return 0, err
	}
	n := 0
	if s.changed.affinity && !rb.CPUs.Equal(s.mask) {
		if err := sched.SetAffinity(0, s.target); err != nil {
			return n, fmt.Errorf("re-asserting affinity: %w", err)
		}
		n++
	}
	if s.accepted != nil && s.matches(*s.accepted) != "" {
		if err := s.apply(*s.accepted); err != nil {
			return n, fmt.Errorf("re-asserting %s: %w", s.accepted, err)
		}
		n++
	}
	if n > 0 {
		s.report.Reasserts += n
		s.report.Readback = s.readback()
	}
	return n, nil
}
