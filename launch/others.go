package launch

import (
	"corepin.dev/corepin/internal/busy"
	"corepin.dev/corepin/results/evidence"
)

// What the run's accounting finds is the run's evidence as results keeps
// it (package evidence), worked out by the judge (internal/judge): one
// declaration, which a reader of run.json links without the launcher.
type (
	// Sharing says whether the target CPUs were the work's own.
	Sharing = evidence.Sharing
	// Coverage says how much of the tree's CPU time the residency figure
	// accounts for.
	Coverage = evidence.Coverage
	// Others is the target CPUs' time that went to anything but the work
	// during the run: the proof that a target was shared.
	Others = evidence.Others
	// Preemptor is a process outside the work that ran on the target
	// during the run, by the scheduler's switch events.
	Preemptor = evidence.Preemptor
)

// Where a target's busy time comes from (Others.Source).
const (
	BusyCpuacct  = busy.Cpuacct
	BusyProcStat = busy.ProcStat
)

// MaxPreemptors is how many a report names, the most time first.
const MaxPreemptors = evidence.MaxPreemptors
