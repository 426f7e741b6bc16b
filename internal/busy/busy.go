// Package busy reads how long the target CPUs have been busy at one
// moment, with every task's time, from the kernel's own account: the root
// cpuacct cgroup's per-CPU usage where a cpuacct hierarchy is mounted
// whole, else /proc/stat's per-CPU ticks. Two readings around a run are
// the window whose time the judge splits between the work, corepin's own
// threads and the others (internal/judge).
package busy

import "time"

// Where a reading comes from (Reading.Source).
const (
	Cpuacct  = "cpuacct"
	ProcStat = "proc_stat"
)

// Reading is how long the target CPUs had been busy at one moment.
type Reading struct {
	At   time.Duration // CLOCK_MONOTONIC
	Wall time.Time     // the same moment on the wall clock
	// Self is the reading thread's CPU time then, so that work on that
	// thread can be counted over the same window.
	Self   time.Duration
	Tasks  map[int]time.Duration // per target CPU, every task's time
	Steal  map[int]time.Duration // per target CPU, nil where unknown
	Source string                // Cpuacct or ProcStat
}
