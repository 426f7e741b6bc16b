package session

import (
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// The report is the run's evidence as results keeps it (package evidence):
// one declaration, which a reader of run.json links without the session.
// These names are the session's words for it.
type (
	// Report is everything a session asked for and everything the kernel
	// said: it travels with every result, so that a run can be explained
	// later from its files alone.
	Report = evidence.Session
	// TargetReport is where the session was asked to put the thread.
	TargetReport = evidence.TargetReport
	// Snapshot is a thread's scheduling state before the session changed
	// it.
	Snapshot = evidence.Snapshot
	// AffinityResult is the affinity request.
	AffinityResult = evidence.AffinityResult
	// LadderResult is the scheduling-attribute requests, step by step.
	LadderResult = evidence.LadderResult
	// StepResult is one step: what it asked, what the kernel answered,
	// whether the read-back matched.
	StepResult = evidence.StepResult
	// QoSResult is a request on the HarmonyOS QoS node.
	QoSResult = evidence.QoSResult
	// Readback is what the kernel reports now.
	Readback = evidence.Readback
	// UclampState is a uclamp read-back.
	UclampState = evidence.UclampState
	// AcceptResult is the verdict of the acceptance rule.
	AcceptResult = evidence.AcceptResult
	// RestoreResult is the restore, step by step, in the order it ran.
	RestoreResult = evidence.RestoreResult
	// RestoreStep is one restore and its verification.
	RestoreStep = evidence.RestoreStep
)

// errnoOf is the errno inside err as the report writes it: its name, or ""
// when err holds none.
func errnoOf(err error) evidence.Errno { return evidence.Errno(sched.ErrnoOf(err).String()) }

// policyOf is a policy as the report writes it: its name.
func policyOf(p sched.Policy) evidence.Policy { return evidence.Policy(p.String()) }
