package session

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// Finish restores what the session changed, in reverse order of the
// requests — QoS, then attributes, then affinity — and verifies each by
// reading it back. It may be called more than once; later calls return the
// first result. When it reports failure the thread is not as it was and
// must not be handed back: leave its goroutine locked and let it exit.
func (s *Session) Finish() evidence.RestoreResult {
	if s.report.Restore.Done {
		return s.report.Restore
	}
	res := evidence.RestoreResult{Done: true, Steps: []evidence.RestoreStep{}}
	if err := s.onOwnThread(); err != nil {
		res.Steps = append(res.Steps, evidence.RestoreStep{What: "thread", Error: err.Error()})
		s.report.Restore = res
		return res
	}
	if s.changed.qos {
		res.Steps = append(res.Steps, s.finishQoS())
	}
	if s.changed.attr || s.changed.uclamp {
		step := evidence.RestoreStep{What: "attributes"}
		if err := s.restoreAttributes(); err != nil {
			step.Errno, step.Error = errnoOf(err), err.Error()
		} else if m := s.attributesMismatch(); m != "" {
			step.Mismatch = m
		} else {
			step.OK = true
		}
		res.Steps = append(res.Steps, step)
	}
	if s.changed.affinity {
		res.Steps = append(res.Steps, s.finishAffinity())
	}
	res.OK = true
	for _, st := range res.Steps {
		res.OK = res.OK && st.OK
	}
	s.report.Restore = res
	s.unhold()
	return res
}

func (s *Session) finishQoS() evidence.RestoreStep {
	step := evidence.RestoreStep{What: "qos"}
	var err error
	if c := s.report.Capture.QoS; c != nil {
		level, _ := qos.Parse(*c)
		err = qos.Set(level) // Set, not Leave: a registered thread stays registered
	} else {
		err = qos.Leave()
	}
	if err != nil {
		step.Errno, step.Error = errnoOf(err), err.Error()
		return step
	}
	level, known, err := qos.Get()
	switch {
	case err != nil:
		step.Error = "reading back: " + err.Error()
	case known != (s.report.Capture.QoS != nil) || (known && level.String() != *s.report.Capture.QoS):
		step.Mismatch = "QoS reads back as " + level.String()
	default:
		step.OK = true
	}
	return step
}

func (s *Session) finishAffinity() evidence.RestoreStep {
	step := evidence.RestoreStep{What: "affinity"}
	want := s.report.Capture.CPUs
	if err := sched.SetAffinity(0, want); err != nil {
		step.Errno, step.Error = errnoOf(err), err.Error()
		return step
	}
	got, err := sched.GetAffinity(0)
	switch {
	case err != nil:
		step.Error = "reading back: " + err.Error()
	case !got.Equal(want):
		step.Mismatch = fmt.Sprintf("mask reads back as %s, was %s", got, want)
	default:
		step.OK = true
	}
	return step
}

// restoreAttributes writes the captured attributes back. Two traps: a
// captured fair thread reports its current EEVDF slice, and writing that
// back would pin it as a custom slice, so the slice is written as 0 and
// set again only when the capture shows one that was asked for; and uclamp
// goes in a call of
// its own, reset to the system default where the capture had the default.
func (s *Session) restoreAttributes() error {
	c := s.report.Capture
	if !c.Complete && len(c.Missing) > 0 && s.captured == (sched.Attr{}) {
		return errors.New("the original attributes were never read; nothing to restore to")
	}
	a := sched.Attr{Policy: s.captured.Policy, Flags: s.captured.Flags & sched.FlagResetOnFork}
	switch {
	case s.captured.Policy.Realtime():
		a.Priority = s.captured.Priority
	case s.captured.Policy == sched.Deadline:
		a.Runtime, a.Deadline, a.Period = s.captured.Runtime, s.captured.Deadline, s.captured.Period
	default:
		a.Nice = s.captured.Nice
	}
	if err := sched.SetAttr(0, a); err != nil {
		return err
	}
	// Written as 0, a fair thread's slice is the default; the captured one
	// is written back only when it differs from what that reads back as
	// (a slice that was asked for). Reading it here, on the thread itself,
	// spares a probe on a thread of its own.
	if fair := !s.captured.Policy.Realtime() && s.captured.Policy != sched.Deadline; fair && s.captured.Runtime != 0 {
		if now, err := sched.GetAttr(0); err == nil && now.Runtime != s.captured.Runtime {
			a.Runtime = s.captured.Runtime
			if err := sched.SetAttr(0, a); err != nil {
				return err
			}
		}
	}
	if s.captured.Policy.Realtime() && c.Nice != 0 {
		if err := sched.SetNice(0, c.Nice); err != nil {
			return err
		}
	}
	if s.changed.uclamp && sched.Uclamp().Supported {
		lo, hi := s.captured.UtilMin, s.captured.UtilMax
		if lo == 0 && hi == sched.UclampMax {
			lo, hi = sched.UclampReset, sched.UclampReset
		}
		if err := sched.SetUclamp(0, lo, hi, a.Flags != 0); err != nil {
			return err
		}
	}
	return nil
}

// attributesMismatch compares the attributes now with the capture.
func (s *Session) attributesMismatch() string {
	c := s.report.Capture
	a, err := sched.GetAttr(0)
	if err != nil {
		return "reading back: " + err.Error()
	}
	switch {
	case a.Policy != s.captured.Policy || a.Priority != s.captured.Priority:
		return fmt.Sprintf("policy reads back as %s:%d, was %s:%d", a.Policy, a.Priority, s.captured.Policy, s.captured.Priority)
	case a.Nice != s.captured.Nice:
		return fmt.Sprintf("nice reads back as %d, was %d", a.Nice, s.captured.Nice)
	case a.Flags&sched.FlagResetOnFork != s.captured.Flags&sched.FlagResetOnFork:
		return "reset-on-fork differs"
	case !a.Policy.Realtime() && a.Runtime != s.captured.Runtime:
		return fmt.Sprintf("slice reads back as %d ns, was %d ns", a.Runtime, s.captured.Runtime)
	case sched.Uclamp().Supported && (a.UtilMin != s.captured.UtilMin || a.UtilMax != s.captured.UtilMax):
		return fmt.Sprintf("uclamp reads back as %d/%d, was %d/%d", a.UtilMin, a.UtilMax, s.captured.UtilMin, s.captured.UtilMax)
	}
	if n, err := sched.GetNice(0); err == nil && n != c.Nice {
		return fmt.Sprintf("nice (getpriority) reads back as %d, was %d", n, c.Nice)
	}
	return ""
}
