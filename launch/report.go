package launch

import (
	"syscall"
	"time"

	"corepin.dev/corepin/internal/account"
	"corepin.dev/corepin/results/evidence"
)

// Report is what a run of the command did: the scheduling report that
// run.json keeps (the session report of the command's thread, what
// happened to the command, and what the watcher saw), and when the
// command's exec was.
type Report struct {
	evidence.Scheduling
	// Slices are who ran on the target during the run, slice by slice,
	// where the on-CPU tracer was given (Sharing.Switches says what they
	// hold); too many for the report itself, they are kept beside it.
	Slices []evidence.Slice `json:"-"`
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

// ExitCode is the code a shell would report for the command: its exit
// status, 128+N for a signal, 125/126/127 when it did not run.
func (r *Report) ExitCode() int {
	switch {
	case r.Refused != "":
		return ExitRefused
	case r.ExecErrno == errnoName(syscall.ENOENT):
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
func (r *Report) NoLongerHeld() string { return account.NoLongerHeld(&r.Scheduling) }

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
