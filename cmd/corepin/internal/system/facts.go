// Package system owns the machine's performance condition around a
// measured CPU: it reads it (Read: frequency policies, boost, energy
// preference, idle states, interrupts, isolation, kernel knobs, thermal
// state), judges it for measuring on a target (Facts.Checks), changes it
// for a run (Plan, Tune), keeps the rest of the machine off the target
// (Shield), and puts back exactly what it found (Reset).
//
// Every change goes through a journal written durably before the change
// is made, so that a crash, a SIGKILL or a power cut leaves a record from
// which Reset restores the old values byte for byte. Files are read and
// written under a root folder (normally "/"), so tests run on fixture
// trees copied to a temporary folder.
package system

import "corepin.dev/corepin/results/evidence"

// The machine's condition, a tune and a reset are recorded in run.json as
// they are read here: system fills in evidence's types, which carry their
// views (WriteText, Warnings, Lines), and adds what only the live machine
// has (reading, judging, tuning, shielding, resetting).
type (
	// Facts is what corepin read about the machine's performance
	// condition, for a target set of CPUs.
	Facts         = evidence.Facts
	CPUFreq       = evidence.CPUFreq
	Policy        = evidence.FreqPolicy
	Boost         = evidence.Boost
	CPU           = evidence.TargetCPU
	IdleState     = evidence.IdleState
	IRQs          = evidence.IRQs
	IRQ           = evidence.IRQ
	ThermalZone   = evidence.ThermalZone
	CoolingDevice = evidence.CoolingDevice
	Load          = evidence.Load
	Check         = evidence.Check

	// Request says what a tune changes; Change is one write of it, Done
	// one made and read back, Refusal one the kernel refused, Result
	// all that a tune did.
	Request = evidence.TuneRequest
	Kind    = evidence.ChangeKind
	Change  = evidence.Change
	Done    = evidence.Done
	Refusal = evidence.Refusal
	Result  = evidence.TuneResult

	// Entry is one change in the journal and what it replaced; a reset
	// reports the entries it put back and those it could not.
	Op           = evidence.Op
	Entry        = evidence.Entry
	ResetReport  = evidence.ResetReport
	RestoreError = evidence.RestoreError

	// ShieldReport says what a shield did; JournalState what the journal
	// holds when corepin looks.
	ShieldReport = evidence.ShieldReport
	Task         = evidence.Task
	CorepinRun   = evidence.CorepinRun
	JournalState = evidence.JournalState
	TuneLayer    = evidence.TuneLayer
	ShieldUp     = evidence.ShieldUp
)

// What a journal entry undoes.
const (
	OpWrite    = evidence.OpWrite
	OpMkdir    = evidence.OpMkdir
	OpMove     = evidence.OpMove
	OpAffinity = evidence.OpAffinity
	OpControl  = evidence.OpControl
)
