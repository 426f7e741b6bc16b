// Package oncpu says who ran on which CPU, from the scheduler's own switch
// events: a BPF program on the sched_switch tracepoint charges every slice
// of CPU time on the watched CPUs to the thread that had it, so that a run
// that found its target shared can name the processes that took it.
//
// The per-CPU busy time that /proc/stat and cpuacct give says how much of
// the target went to others, but not to whom; a sampler of /proc/*/stat
// misses short-lived tasks and costs more the more tasks there are. The
// switch events miss nothing. Their cost is in the switches: on a watched
// CPU a handful of lock-free map lookups each, elsewhere one check (and a
// lookup while a thread preempted on a watched CPU still waits). A busy
// loop, which hardly switches, does not notice it; a pipe ping-pong, which
// switches every few microseconds, does (bench/oncpu-cost.sh).
//
// Every task on the watched CPUs is accounted, corepin's own included: the
// caller knows the run's tree by PID and excludes it (cgroup v1 machines
// give a BPF program no cgroup id it could filter on). The idle task is
// not a task here: its time is the CPU's idle time.
//
// It needs Linux with BTF (CONFIG_DEBUG_INFO_BTF, 5.5 or later for
// tp_btf programs) and the right to load BPF programs (root, or CAP_BPF
// and CAP_PERFMON). On kernels before 5.11 the maps (about 2 MB) also
// count against RLIMIT_MEMLOCK, which this package leaves as it is.
package oncpu

import (
	"cmp"
	"slices"
	"time"

	"corepin.dev/corepin/cpuset"
)

//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -tags linux -type cpu_state -type task_key -type task_val -type wait_val -type slice bpf bpf/oncpu.bpf.c -- -O2 -g -Wall -Werror

// MaxTasks bounds what the kernel side keeps: the entries of Tasks (one
// per thread and CPU), and the threads whose waits it follows (each thread
// that was ever preempted on a watched CPU). What does not fit is counted
// in Lost.
const MaxTasks = 16384

// SlicesPerCPU is how many of its latest slices each watched CPU's log
// keeps (LOG_SIZE in the program): Slices returns at most that many per CPU
// between two snapshots, and counts the older ones lost.
const SlicesPerCPU = 4096

// Tracer accounts who runs on a set of CPUs, from Start to Stop.
type Tracer struct {
	cpus cpuset.Set
	sys  *sysTracer
}

// Account is what ran on the watched CPUs between Start and Stop.
type Account struct {
	CPUs cpuset.Set
	// Tasks has one entry per thread and CPU, the most time first.
	Tasks []Task
	// Busy is each watched CPU's run time of every task but idle, by the
	// kernel's own account (as the root cpuacct group's usage_percpu
	// counts it): the sum of the tasks' OnCPU there, with Lost.Time.
	// Idle is the idle task's wall time. What is left of the span from
	// Start to Stop went to interrupts and to the hypervisor, while a
	// task was on.
	Busy map[int]time.Duration
	Idle map[int]time.Duration
	// NoSwitch lists the watched CPUs that did not switch tasks once
	// between Start and Stop (a nohz_full CPU running one task can do
	// that): whose time it was is unknown, so it is in neither Busy nor
	// Idle.
	NoSwitch []int
	// Lost is what did not fit in the kernel's bounded maps.
	Lost Lost

	// at is the account's moment (CLOCK_MONOTONIC), after its tasks
	// were read; seq is each watched CPU's count of slices logged until
	// then, every one of them ended by at, and open the slice under way
	// on it then, charged up to at. Tracer.Slices reads the slices
	// between two accounts by them.
	at   time.Duration
	seq  map[int]uint64
	open map[int]Slice
}

// Slice is one thread's time on one CPU, from the switch that put it on to
// the one that took it off: who ran there when.
type Slice struct {
	PID  int // the process (thread group id)
	TID  int // the thread
	Comm string
	CPU  int
	// Start and End are CLOCK_MONOTONIC times (bpf_ktime_get_ns). OnCPU is
	// the thread's run time in between, as Task.OnCPU counts it: End-Start
	// less interrupts and what the hypervisor stole.
	Start, End time.Duration
	OnCPU      time.Duration
}

// Task is one thread's time on one CPU.
type Task struct {
	PID  int    // the process (thread group id)
	TID  int    // the thread
	Comm string // the thread's name when it last left the CPU
	CPU  int
	// OnCPU is the time the thread ran on CPU by the kernel's own account
	// (sum_exec_runtime, which cpuacct and schedstat report), which leaves
	// out interrupts (with IRQ time accounting) and time the hypervisor
	// stole. The one slice the program did not see begin, the first on
	// each CPU after Start, is counted in wall time from Start.
	OnCPU time.Duration
	// Waited is the time the thread spent runnable after it was switched
	// out of CPU still wanting to run (preempted, or it yielded), until it
	// ran again on any CPU. It is the thread's loss, not evidence of who
	// took the CPU: the run's own threads make each other wait too.
	Waited time.Duration
}

// Lost counts what the kernel side could not keep because its maps were
// full (more than MaxTasks threads and CPUs, or pending waits). Where it is
// not zero, the tasks' times add up to less than Busy.
type Lost struct {
	Slices int           // CPU slices charged to no task
	Time   time.Duration // their run time (it is still in Busy)
	Waits  int           // waits that were not followed
}

// Any reports whether anything was lost.
func (l Lost) Any() bool { return l.Slices > 0 || l.Waits > 0 }

// Process is a thread group's time on the watched CPUs.
type Process struct {
	PID int
	// Comm is the name of the main thread where it ran there, else the
	// name of the thread with the most time.
	Comm    string
	Threads int
	OnCPU   time.Duration
	Waited  time.Duration
}

// Start begins accounting who runs on cpus. It returns an error wrapping
// errors.ErrUnsupported where the system lacks what it needs (not Linux,
// no kernel BTF, a kernel without tp_btf programs), or the errno (EPERM
// without the right to load BPF), with a message naming what is missing.
func Start(cpus cpuset.Set) (*Tracer, error) {
	sys, err := start(cpus)
	if err != nil {
		return nil, err
	}
	return &Tracer{cpus: cpus, sys: sys}, nil
}

// Stop detaches the program and returns what ran on the CPUs since Start.
// The thread on each CPU at the end is charged up to Stop, and a thread
// still waiting then has waited until Stop. A Tracer stops once.
func (t *Tracer) Stop() (Account, error) {
	a, err := t.sys.stop()
	if err != nil {
		return Account{}, err
	}
	a.CPUs = t.cpus
	return a, nil
}

// Snapshot reads what ran on the CPUs since Start without stopping: the
// difference of two snapshots (Account.Since) is what ran between them,
// so that one tracer, loaded once, serves many runs. The thread on each
// CPU is charged up to now, as Stop does.
func (t *Tracer) Snapshot() (Account, error) {
	a, err := t.sys.snapshot()
	if err != nil {
		return Account{}, err
	}
	a.CPUs = t.cpus
	return a, nil
}

// Slices returns who ran on the watched CPUs between two snapshots of the
// tracer, slice by slice in each CPU's order: a slice under way at from
// starts at from with only its run time after it, and the slice under way
// at to ends there, so that each thread's slices add up to its time in
// to.Since(from). A CPU's log keeps its latest SlicesPerCPU slices: lost
// counts the older ones between the two snapshots, which are left out.
func (t *Tracer) Slices(from, to Account) (s []Slice, lost int, err error) {
	return t.sys.slices(from, to)
}

// clip makes the slices of one CPU between from and to fit the window:
// the one under way at from keeps only the run time charged after it, one
// under way at to ends there, and one the CPU began after to (while to was
// being read) is left out.
func clip(sl []Slice, from, to Account) []Slice {
	out := sl[:0]
	for _, s := range sl {
		if s.Start >= to.at {
			continue
		}
		if s.Start < from.at {
			if o, ok := from.open[s.CPU]; ok && o.TID == s.TID && o.Start == s.Start {
				s.OnCPU = max(0, s.OnCPU-o.OnCPU)
			}
			s.Start = from.at
		}
		if s.End > to.at {
			s.OnCPU = max(0, s.OnCPU-(s.End-to.at))
			s.End = to.at
		}
		out = append(out, s)
	}
	return out
}

// Since is what ran after earlier, a snapshot of the same tracer taken
// before a: each thread's time, and each CPU's busy and idle time, less
// what earlier had.
func (a Account) Since(earlier Account) Account {
	type key struct{ pid, tid, cpu int }
	before := map[key]Task{}
	for _, t := range earlier.Tasks {
		before[key{t.PID, t.TID, t.CPU}] = t
	}
	out := Account{CPUs: a.CPUs, Busy: map[int]time.Duration{}, Idle: map[int]time.Duration{}, NoSwitch: a.NoSwitch,
		Lost: Lost{Slices: a.Lost.Slices - earlier.Lost.Slices, Time: a.Lost.Time - earlier.Lost.Time, Waits: a.Lost.Waits - earlier.Lost.Waits}}
	for _, t := range a.Tasks {
		b := before[key{t.PID, t.TID, t.CPU}]
		t.OnCPU, t.Waited = max(0, t.OnCPU-b.OnCPU), max(0, t.Waited-b.Waited)
		if t.OnCPU > 0 || t.Waited > 0 {
			out.Tasks = append(out.Tasks, t)
		}
	}
	sortTasks(out.Tasks)
	for cpu, d := range a.Busy {
		out.Busy[cpu] = max(0, d-earlier.Busy[cpu])
	}
	for cpu, d := range a.Idle {
		out.Idle[cpu] = max(0, d-earlier.Idle[cpu])
	}
	return out
}

// Supported reports whether Start can work here. It loads and attaches
// the program with no CPU watched and detaches it again, since only the
// kernel's verifier and its attach can tell; evidence says what was found
// either way, for corepin caps.
func Supported() (evidence string, err error) { return supported() }

// sortTasks orders tasks by time, the most first, then by PID, TID and CPU
// so that equal times list the same way every time.
func sortTasks(tasks []Task) {
	slices.SortFunc(tasks, func(a, b Task) int {
		return cmp.Or(cmp.Compare(b.OnCPU, a.OnCPU), cmp.Compare(a.PID, b.PID),
			cmp.Compare(a.TID, b.TID), cmp.Compare(a.CPU, b.CPU))
	})
}

// Processes groups the tasks by process, the most time first.
func (a Account) Processes() []Process {
	type thread struct {
		comm  string
		onCPU time.Duration
	}
	byPID := map[int]*Process{}
	threads := map[int]map[int]*thread{}
	for _, t := range a.Tasks {
		p := byPID[t.PID]
		if p == nil {
			p = &Process{PID: t.PID}
			byPID[t.PID] = p
			threads[t.PID] = map[int]*thread{}
		}
		p.OnCPU += t.OnCPU
		p.Waited += t.Waited
		th := threads[t.PID][t.TID]
		if th == nil {
			th = &thread{comm: t.Comm}
			threads[t.PID][t.TID] = th
		}
		th.onCPU += t.OnCPU
	}
	out := make([]Process, 0, len(byPID))
	for pid, p := range byPID {
		p.Threads = len(threads[pid])
		if main, ok := threads[pid][pid]; ok {
			p.Comm = main.comm
		} else {
			best := -1
			for tid, th := range threads[pid] {
				if b := threads[pid][best]; b == nil || th.onCPU > b.onCPU || th.onCPU == b.onCPU && tid < best {
					best, p.Comm = tid, th.comm
				}
			}
		}
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b Process) int {
		return cmp.Or(cmp.Compare(b.OnCPU, a.OnCPU), cmp.Compare(a.PID, b.PID))
	})
	return out
}

// Top returns at most n processes that had the most time on the watched
// CPUs, leaving out those exclude reports (the run's own tree): the ones
// that took the target from the work. exclude may be nil.
func (a Account) Top(n int, exclude func(pid int) bool) []Process {
	var top []Process
	for _, p := range a.Processes() {
		if len(top) == n {
			break
		}
		if exclude == nil || !exclude(p.PID) {
			top = append(top, p)
		}
	}
	return top
}
