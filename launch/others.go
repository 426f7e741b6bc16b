package launch

import "corepin.dev/corepin/results/evidence"

// Where a target's busy time comes from (Others.Source).
const (
	BusyCpuacct  = "cpuacct"
	BusyProcStat = "proc_stat"
)

type (
	// Others is the target CPUs' time that went to anything but the work
	// during the run: the proof that a target was shared.
	Others = evidence.Others
	// Preemptor is a process outside the work that ran on the target
	// during the run, by the scheduler's switch events.
	Preemptor = evidence.Preemptor
)

// MaxPreemptors is how many a report names, the most time first.
const MaxPreemptors = evidence.MaxPreemptors
