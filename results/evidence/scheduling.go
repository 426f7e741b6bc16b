package evidence

import (
	"fmt"
	"strings"
	"time"

	"corepin.dev/corepin/cpuset"
)

// Scheduling is the report of the thread that did the work, as launch
// writes it (launch.Report): the session's report of the thread, what
// happened to the command, and what the watcher saw.
type Scheduling struct {
	Session
	Command []string    `json:"command"`
	Start   string      `json:"start"` // StartFork, StartLauncher or StartThread
	Child   ChildReport `json:"child"`
	Watch   *Watch      `json:"watch"`
	// WatchError says why there is no watch result.
	WatchError string       `json:"watch_error,omitempty"`
	Parent     ParentReport `json:"parent"`
	Tree       *TreeReport  `json:"tree,omitempty"`
	// Sharing and Coverage say whether the target was the work's own and
	// how much of the work the residency describes; nil when the command
	// did not run.
	Sharing  *Sharing  `json:"sharing,omitempty"`
	Coverage *Coverage `json:"coverage,omitempty"`
	// Broken says in words why the target was no longer held (launch's
	// NoLongerHeld), for readers of the JSON.
	Broken string `json:"no_longer_held,omitempty"`
	// Refused, ExecError and ExecErrno say why the command did not run.
	Refused   string `json:"refused,omitempty"`
	ExecError string `json:"exec_error,omitempty"`
	ExecErrno Errno  `json:"exec_errno,omitempty"`
	// Dir is the folder the command ran in, Corepin the process of
	// corepin exec around it and Telemetry the curves exec --telemetry
	// wrote: what joins an exec's report with another tool's record of
	// the same invocation (SPEC's speccmds.out, a telemetry file).
	// Written by corepin exec only.
	Dir       string         `json:"dir,omitempty"`
	Corepin   *OwnProcess    `json:"corepin,omitempty"`
	Telemetry *TelemetryFile `json:"telemetry,omitempty"`
}

// How the command was started (Scheduling.Start): the launch package's
// StartFork, StartLauncher and StartThread.
const (
	// StartFork: forked from a thread of corepin that the session had set
	// up, so the command began as a copy of that thread.
	StartFork = "fork"
	// StartLauncher: corepin ran again as the launcher, set up its own
	// thread and became the command.
	StartLauncher = "launcher"
	// StartThread: the work is Go code that ran on a session thread of
	// corepin itself.
	StartThread = "thread"
)

// MaxPreemptors is how many preemptors a report names, the most time
// first: the record's bound.
const MaxPreemptors = 5

// Sharing says whether the target CPUs were the work's own: how much of
// the CPUs the tree used, and how long its threads waited, runnable, for a
// CPU while something else ran there (the kernel's schedstat account of
// every followed thread).
type Sharing struct {
	// UsableCPUs is the number of target CPUs the tree could use.
	UsableCPUs int `json:"usable_cpus"`
	// CPUPerWall is the followed threads' time on a CPU per second of the
	// command's wall time; at most UsableCPUs for work that had the CPUs
	// to itself.
	CPUPerWall *float64 `json:"cpu_per_wall"`
	// WaitS is the followed threads' time waiting on a run queue;
	// WaitShare that time as a share of the time they wanted a CPU (on
	// one or waiting for one): "the work waited N% of its time".
	// WaitOfWall is WaitS per second of wall time.
	WaitS      *float64 `json:"wait_s"`
	WaitShare  *float64 `json:"wait_share"`
	WaitOfWall *float64 `json:"wait_of_wall"`
	// BusyThreads counts the threads that wanted a CPU (ran or waited
	// for one) for at least half the wall time; more of them than
	// UsableCPUs took turns on the target.
	BusyThreads int `json:"busy_threads"`
	// Others is the target's time that went to anything but the work:
	// what a shared target is judged by. Null where the target's busy
	// time could not be read.
	Others *Others `json:"others,omitempty"`
	// Preemptors name the processes outside the work that took the most
	// time on the target, from the scheduler's switch events where corepin
	// may trace them (BPF); null where it did not, with PreemptorsError
	// saying why when it tried.
	Preemptors      []Preemptor `json:"preemptors,omitempty"`
	PreemptorsError string      `json:"preemptors_error,omitempty"`
	// Switches is the same tracer's record of the run slice by slice,
	// kept in a file beside run.json; nil where there is none.
	Switches *Switches `json:"switches,omitempty"`
}

// Switches is who ran on the target during the run, slice by slice, from
// the scheduler's switch events: the slices (Slice) are in a CSV of the
// results folder, their times from Others.From, and this
// says what the file holds. Each target CPU logs its latest
// oncpu.SlicesPerCPU slices: Lost counts the older ones of the window,
// whose time is in no slice.
type Switches struct {
	// File is the CSV, relative to the results folder; "" where it was
	// not kept (corepin exec).
	File   string `json:"file,omitempty"`
	Slices int    `json:"slices"`
	Lost   int    `json:"lost"`
	// OthersS and WorkS are the slices' run time outside the work and
	// the work's own: where nothing was lost, OthersS is the tracer's
	// account of Others.S, over the same window.
	OthersS float64 `json:"others_s"`
	WorkS   float64 `json:"work_s"`
	// Error says why the slices could not be read.
	Error string `json:"error,omitempty"`
}

// Slice is one thread's time on one CPU, from the switch that put it on to
// the one that took it off, cut to the run's window.
type Slice struct {
	// Start and End are seconds from the run's window start (the
	// target's first reading, sharing.others.from in run.json), on the
	// same clock.
	Start, End float64
	CPU        int
	PID, TID   int
	// OnCPUS is the thread's run time in the slice by the kernel's
	// account (sum_exec_runtime, as cpuacct counts it): End-Start less
	// interrupts and what the hypervisor stole.
	OnCPUS float64
	// Work is true for the run's own threads (its tree, or the thread it
	// ran on, and the thread that started it); the rest is what others
	// took from the target.
	Work bool
	Comm string
}

// Coverage says how much of the tree's CPU time the residency figure
// accounts for.
type Coverage struct {
	// TreeCPUS is the whole tree's CPU time: the cgroup's exact account
	// (TreeSource "cgroup") or the command's rusage, its own and its
	// waited-for descendants' (TreeSource "rusage").
	TreeCPUS   float64 `json:"tree_cpu_s"`
	TreeSource string  `json:"tree_source"`
	// SeenCPUS is the CPU time of the threads the watcher saw;
	// SampledCoverage is SeenCPUS over TreeCPUS, at most 1: what the
	// sampled residency covers. Threads that lived between two samples
	// are never seen.
	SeenCPUS        float64  `json:"seen_cpu_s"`
	SampledCoverage *float64 `json:"sampled_coverage"`
	// Residency is the share of the tree's CPU time spent on the target,
	// from the exact per-CPU account where the kernel keeps one
	// (ResidencySource "cpuacct", covering every process: Coverage 1),
	// else from the samples ("sampled", Coverage = SampledCoverage).
	// SampledResidency is the sampled figure, kept beside the exact one.
	Residency        *float64 `json:"residency"`
	ResidencySource  string   `json:"residency_source"`
	Coverage         *float64 `json:"coverage"`
	SampledResidency *float64 `json:"sampled_residency"`
	// TooShort says why a sampled coverage says nothing of the work: the
	// tree used less CPU time than MinSampledPeriods of the watcher's
	// period (see account.MinSampledCPU), or the watcher took fewer samples than
	// that. "" when it may be judged.
	TooShort string `json:"too_short_to_judge,omitempty"`
}

// Others is the target CPUs' time that went to anything but the work
// during the run: the proof that a target was shared, where the work's
// own wait for its CPU proves nothing (its own threads wait for each other
// too). It is the target's busy time between two readings taken just
// before the work started and just after it ended, less the work's own
// time on the target.
type Others struct {
	// From is when the window began: the first reading, on the wall clock
	// (CLOCK_REALTIME, as run.json's times); zero in an older run.json.
	From time.Time `json:"from,omitzero"`
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
	// OwnS is corepin's own: the time its thread that forked the command
	// spent on the target after the first reading, until it left, outside
	// the work's account. It is neither the work's nor others', and is
	// left out of S.
	OwnS float64 `json:"own_s,omitempty"`
	// ResolutionS is how far S may be off from the readings' granularity
	// alone: 0 for the nanosecond account, two ticks per CPU for
	// /proc/stat.
	ResolutionS float64 `json:"resolution_s"`
	// StealS is the time the hypervisor ran something else on the target
	// CPUs' physical cores (/proc/stat's steal); null where unknown.
	StealS *float64 `json:"steal_s"`
	// KernelS is the part of S that the target's own per-CPU kernel
	// threads ran (migration/N, ksoftirqd/N, cpuhp/N, kworker/N:M: the
	// kernel threads allowed on target CPUs alone, found before the
	// run), from their schedstat run times in nanoseconds at both
	// readings. They are the CPU's own housekeeping, on every CPU, and
	// no shield or tune moves them, so the judge leaves them out of the
	// others' time it judges, and says them. One started during the run
	// is not among them and stays in S as any other task. KernelThreads
	// are those that ran in the window, most first.
	KernelS       float64     `json:"kernel_s,omitempty"`
	KernelThreads []Preemptor `json:"kernel_threads,omitempty"`
}

// Preemptor is a process outside the work that ran on the target during
// the run, by the scheduler's switch events: "kworker/1:2 19 ms".
type Preemptor struct {
	PID    int     `json:"pid"`
	Comm   string  `json:"comm"`
	OnCPUS float64 `json:"on_cpu_s"`
}

// PreemptorsText says them in a line: "kworker/1:2 (41) 19.0 ms, sshd
// (802) 4.1 ms".
func PreemptorsText(ps []Preemptor) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s (%d) %.1f ms", p.Comm, p.PID, 1000*p.OnCPUS)
	}
	return strings.Join(parts, ", ")
}

// ChildReport is the command's end and resource use.
type ChildReport struct {
	PID      int     `json:"pid"`
	ExitCode *int    `json:"exit_code"`
	Signal   *string `json:"signal"`
	// WallS is the command's wall time, from just before its exec to its
	// exit: by the kernel's taskstats clock (WallSource "taskstats"); through
	// the launcher, by the kernel's process events ("proc_events"), from
	// the end of the launcher's exec into the command to its exit; or by
	// corepin's clock ("clock"), which sees the exit a little late.
	WallS      float64 `json:"wall_s"`
	WallSource string  `json:"wall_source,omitempty"`
	UserS      float64 `json:"user_s"`
	SysS       float64 `json:"sys_s"`
	MaxRSSKB   int64   `json:"max_rss_kb"`
	// MaxRSSSource says where MaxRSSKB comes from: "taskstats", the
	// kernel's record of the command's own memory when it exited, or
	// "rusage", which can include the high-water mark of corepin's
	// memory that the command's exec replaced.
	MaxRSSSource string `json:"max_rss_source,omitempty"`
	TimedOut     bool   `json:"timed_out"`
	Started      bool   `json:"started"`
	// Times places the command on the wall clock and the monotonic
	// clock; nil when it did not start.
	Times *Times `json:"times,omitempty"`
}

// Times are when a command ran, on the two clocks another record of it
// may use: the wall clock, in nanoseconds since the epoch (what
// gettimeofday gives, as SPEC's specinvoke and a telemetry file's start
// do), and CLOCK_MONOTONIC, which a step of the wall clock does not move.
// The start is corepin's reading just before the fork (through the
// launcher, the launcher's just before its exec into the command); the
// end is when corepin saw the command exit, a scheduling latency after
// it did. The wall clock's readings are the monotonic ones shifted by the
// two clocks' offset when the command had ended.
type Times struct {
	StartUnixNS int64 `json:"start_unix_ns"`
	EndUnixNS   int64 `json:"end_unix_ns"`
	StartMonoNS int64 `json:"start_mono_ns"`
	EndMonoNS   int64 `json:"end_mono_ns"`
}

// OwnProcess is corepin exec's own process around the command: what a
// record of the whole invocation timed, such as SPEC's speccmds.out, which
// times the shell that starts corepin. Its start comes before the
// command's by corepin's own set-up (its threads moved off the target, the
// run's cgroup made, the session read back), its end after the command's
// by the tree's end and the report.
type OwnProcess struct {
	PID int `json:"pid"`
	// StartUnixNS is when the process began on the wall clock:
	// StartSource "taskstats" is its fork, by the kernel's clock; "init"
	// is when its Go program began, after its exec and the runtime's start
	// (where taskstats is not allowed: it needs CAP_NET_ADMIN).
	StartUnixNS int64  `json:"start_unix_ns"`
	StartSource string `json:"start_source"`
	// EndUnixNS is when the report was written, the last thing corepin
	// does before it exits.
	EndUnixNS int64 `json:"end_unix_ns"`
}

// TelemetryFile is the per-CPU curves corepin exec --telemetry wrote
// around the command, with the sampler kept off the target.
type TelemetryFile struct {
	// File is the CSV (t_s,cpu,util_pct,freq_mhz,freq_source) as given
	// on the command line; StartUnixNS the wall clock of its t_s 0.
	File        string     `json:"file"`
	StartUnixNS int64      `json:"start_unix_ns"`
	PeriodS     float64    `json:"period_s"`
	Samples     int        `json:"samples"`
	SamplerCPUs cpuset.Set `json:"sampler_cpus"`
	Notes       []string   `json:"notes,omitempty"`
}

// ParentReport says where corepin's own threads were kept during the run.
type ParentReport struct {
	CPUs     cpuset.Set `json:"cpus"` // empty when they could not avoid the target
	Restored bool       `json:"restored"`
	Note     string     `json:"note,omitempty"`
}

// TreeReport says how the command's whole process tree was contained and
// ended.
type TreeReport struct {
	Mechanism string `json:"mechanism"`
	// Cgroup lists the run's cgroup directories (removed afterwards);
	// CgroupCPUs is the CPU list read back from the cgroup.
	Cgroup     []string   `json:"cgroup,omitempty"`
	CgroupCPUs cpuset.Set `json:"cgroup_cpus,omitempty"`
	// NoCgroup says why the run had no cgroup.
	NoCgroup string `json:"no_cgroup,omitempty"`
	// CgroupRemoved: every directory of the run's cgroup is gone.
	// Swept says that they were gone before corepin removed them: another
	// process removed them while the run went on, as a corepin's sweep
	// does with the cgroups of a corepin it takes for dead, once it has
	// ended their processes.
	CgroupRemoved bool   `json:"cgroup_removed"`
	Swept         string `json:"swept,omitempty"`
	PGID          int    `json:"pgid"`
	// Subreaper: orphans of the tree were reparented to corepin, which
	// followed and reaped them.
	Subreaper bool `json:"subreaper"`
	// Ended counts the processes of the run that were still running when
	// corepin ended the tree (at the timeout, at Ctrl-C, or after the
	// command itself exited); Left those still running afterwards, 0
	// unless something escaped every mechanism.
	Ended int `json:"ended"`
	Left  int `json:"left"`
	// EndedCommand: the command itself was among the Ended (its timeout,
	// Ctrl-C), not only what it left running.
	EndedCommand bool `json:"ended_command,omitempty"`
	// ReapedCPUS is the CPU time of the run's orphans that corepin, their
	// subreaper, reaped (each one's own and its waited-for children's,
	// from wait4): the command's rusage does not hold them, and without a
	// cgroup the work's account is the two together.
	ReapedCPUS float64 `json:"reaped_cpu_s,omitempty"`
	// CPUSeconds is the cgroup's exact account of the whole tree's CPU
	// time, the dead processes' included; null without a cgroup account.
	// PerCPUSeconds splits it by CPU where the kernel does (cgroup v1
	// cpuacct).
	CPUSeconds    *float64        `json:"cpu_s"`
	PerCPUSeconds map[int]float64 `json:"per_cpu_s,omitempty"`
	// LeftCgroup counts the run's processes that were found outside its
	// cgroup (a program can move itself); LeftCgroupCPUS is the CPU
	// time they used between the first and the last time they were seen
	// outside, from /proc, which the cgroup's account misses and the
	// tree's CPU time includes; LeftCgroupOnTargetS the
	// part of it of those last seen on the target. The kernel does not
	// say when a process moved: LeftCgroupCPUMaxS is their CPU time from
	// the last time each was seen inside (from its start when it never
	// was) to the last look, so that what they used outside between the
	// looks lies between the two.
	LeftCgroup          int     `json:"left_cgroup,omitempty"`
	LeftCgroupCPUS      float64 `json:"left_cgroup_cpu_s,omitempty"`
	LeftCgroupCPUMaxS   float64 `json:"left_cgroup_cpu_max_s,omitempty"`
	LeftCgroupOnTargetS float64 `json:"left_cgroup_on_target_s,omitempty"`
	// PriorityScope says what makes the priority the command's thread
	// read back act against the rest of the machine: "cpu cgroup weight
	// N" (the tree ran in a cpu cgroup of kernel weight N, read back),
	// or internal/tree's ScopeAutogroup, ScopeNoAutogroup or
	// ScopeRealtime; empty where nothing was raised or lowered. PriorityNote says why a nice value
	// that acts only within its session got no cpu cgroup.
	PriorityScope string   `json:"priority_scope,omitempty"`
	PriorityNote  string   `json:"priority_note,omitempty"`
	Errors        []string `json:"errors,omitempty"`
}
