package launch

import (
	"syscall"
	"time"

	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/watch"
)

// Report is the session report of the command's thread, what happened to
// the command, and what the watcher saw.
type Report struct {
	session.Report
	Command []string      `json:"command"`
	Start   string        `json:"start"` // StartFork, StartLauncher or StartThread
	Child   ChildReport   `json:"child"`
	Watch   *watch.Result `json:"watch"`
	// WatchError says why there is no watch result.
	WatchError string       `json:"watch_error,omitempty"`
	Parent     ParentReport `json:"parent"`
	Tree       *TreeReport  `json:"tree,omitempty"`
	// Sharing and Coverage say whether the target was the work's own and
	// how much of the work the residency describes; nil when the command
	// did not run.
	Sharing  *Sharing  `json:"sharing,omitempty"`
	Coverage *Coverage `json:"coverage,omitempty"`
	// Broken is NoLongerHeld in words, for readers of the JSON.
	Broken string `json:"no_longer_held,omitempty"`
	// Refused, ExecError and ExecErrno say why the command did not run.
	Refused   string      `json:"refused,omitempty"`
	ExecError string      `json:"exec_error,omitempty"`
	ExecErrno sched.Errno `json:"exec_errno,omitempty"`
	// execAt is CLOCK_MONOTONIC just before the command's exec;
	// execElapsed the launcher's own age then, by the kernel's taskstats
	// clock (0 where unknown).
	execAt, execElapsed time.Duration
}

// How the command was started.
const (
	// StartFork: forked from a thread of corepin that the session had set
	// up, so the command began as a copy of that thread.
	StartFork = "fork"
	// StartLauncher: corepin ran again as the launcher, set up its own
	// thread and became the command.
	StartLauncher = "launcher"
	// StartThread: the work is Go code that ran on a session thread of
	// corepin itself (RunThread).
	StartThread = "thread"
)

type (
	// ChildReport is the command's end and resource use.
	ChildReport = evidence.ChildReport
	// ParentReport says where corepin's own threads were kept during the
	// run.
	ParentReport = evidence.ParentReport
)

// ExitCode is the code a shell would report for the command: its exit
// status, 128+N for a signal, 125/126/127 when it did not run.
func (r *Report) ExitCode() int {
	switch {
	case r.Refused != "":
		return ExitRefused
	case r.ExecErrno == sched.Errno(syscall.ENOENT):
		return ExitNotFound
	case r.ExecError != "":
		return ExitNotExecutable
	case r.NoLongerHeld() != "":
		return ExitNoLongerHeld
	case r.Child.Signal != nil:
		return 128 + signalNumber(*r.Child.Signal)
	case r.Child.ExitCode != nil:
		return *r.Child.ExitCode
	}
	return 1
}

// NoLongerHeld says why the acceptance rule stopped holding during the
// run ("CPU 3 went offline at 1.2 s; the work ran elsewhere from then on
// (…)"), or "" when it held.
func (r *Report) NoLongerHeld() string {
	if r.Watch != nil && r.Watch.TargetOffline != nil {
		return r.Watch.TargetOffline.String()
	}
	return ""
}

// AcceptedStepInfo returns the accepted ladder step, the first step that
// was tried (not skipped), and the ladder's name; 0 means none.
func (r *Report) AcceptedStepInfo() (accepted, firstTried int, ladder string) {
	for _, st := range r.Ladder.Steps {
		if st.Skipped == "" {
			firstTried = st.Step
			break
		}
	}
	return r.Ladder.AcceptedStep, firstTried, r.Ladder.Name
}
