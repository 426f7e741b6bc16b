// Package busy reads how long the target CPUs have been busy at one
// moment, with every task's time, from the kernel's own account: the root
// cpuacct cgroup's per-CPU usage where a cpuacct hierarchy is mounted
// whole, else /proc/stat's per-CPU ticks. Two readings around a run are
// the window whose time the judge splits between the work, corepin's own
// threads and the others (internal/judge). Beside it, each reading has
// the run time of the target's own per-CPU kernel threads, which are
// part of the others' time and said apart.
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
	// Kernel are the run times of the target's own per-CPU kernel
	// threads, found once when the meter was made, read beside the busy
	// time; a thread that has ended is not among them.
	Kernel []KernelThread
}

// KernelThread is one kernel thread allowed on the target CPUs alone
// (migration/3, ksoftirqd/3, kworker/3:1H), and the time it had run at a
// reading, from its schedstat (nanoseconds).
type KernelThread struct {
	PID  int
	Comm string
	Run  time.Duration
}
