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
//
// What it reads, changes, shields and resets is recorded in run.json as
// it is read here, in package evidence's types (Facts, TuneResult,
// ResetReport, ShieldReport, JournalState), which carry their views
// (WriteText, Warnings, Lines).
package system
