package launch

// Where a target's busy time comes from (Others.Source).
const (
	BusyCpuacct  = "cpuacct"
	BusyProcStat = "proc_stat"
)

// Others is the target CPUs' time that went to anything but the work
// during the run: the proof that a target was shared, where the work's
// own wait for its CPU proves nothing (its own threads wait for each other
// too). It is the target's busy time between two readings taken just
// before the work started and just after it ended, less the work's own
// time on the target.
type Others struct {
	// S is the others' time on the target CPUs; Share is S over WindowS ×
	// CPUs, the share of the target the work did not have.
	S     float64 `json:"others_s"`
	Share float64 `json:"others_share"`
	// Source is where the target's busy time comes from: "cpuacct", the
	// root cpuacct cgroup's per-CPU account of every task in
	// nanoseconds, or "proc_stat", /proc/stat's user, nice and system
	// ticks (10 ms each). Neither counts interrupts or the hypervisor's
	// steal, which StealS gives.
	Source string `json:"source"`
	// WorkSource is how the work's own time on the target is known:
	// "cgroup" (the run cgroup's exact account), "thread" (the work
	// thread's CPU clock) or "rusage" (the command's and its waited-for
	// children's CPU time, placed on the target by the residency: an
	// estimate). Exact is true when both sources are exact accounts.
	WorkSource string `json:"work_source"`
	Exact      bool   `json:"exact"`
	// BusyS is the target's busy time in the window, WorkS the work's
	// part of it; WindowS the time between the two readings; CPUs the
	// number of target CPUs.
	BusyS   float64 `json:"target_busy_s"`
	WorkS   float64 `json:"work_s"`
	WindowS float64 `json:"window_s"`
	CPUs    int     `json:"cpus"`
	// ResolutionS is how far S may be off from the readings' granularity
	// alone: 0 for the nanosecond account, two ticks per CPU for
	// /proc/stat.
	ResolutionS float64 `json:"resolution_s"`
	// StealS is the time the hypervisor ran something else on the target
	// CPUs' physical cores (/proc/stat's steal); null where unknown.
	StealS *float64 `json:"steal_s"`
}

// Preemptor is a process outside the work that ran on the target during
// the run, by the scheduler's switch events: "kworker/1:2 19 ms".
type Preemptor struct {
	PID    int     `json:"pid"`
	Comm   string  `json:"comm"`
	OnCPUS float64 `json:"on_cpu_s"`
}

// MaxPreemptors is how many a report names, the most time first.
const MaxPreemptors = 5
