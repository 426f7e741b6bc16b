package account

import (
	"cmp"
	"slices"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/busy"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
)

// OthersBetween is the target's time between two busy readings that did not go
// to the work, which had work of it, nor to corepin's own starting
// thread, which had own of it; nil when the readings are of different
// sources or the window is empty.
func OthersBetween(before, after busy.Reading, work, own time.Duration, workSource string, workExact bool) *evidence.Others {
	if before.Source != after.Source || after.At <= before.At {
		return nil
	}
	var total, steal time.Duration
	for cpu, t := range after.Tasks {
		total += max(0, t-before.Tasks[cpu])
	}
	o := &evidence.Others{
		From: before.Wall, Source: after.Source, WorkSource: workSource, CPUs: len(after.Tasks),
		BusyS: total.Seconds(), WorkS: work.Seconds(), OwnS: own.Seconds(), WindowS: (after.At - before.At).Seconds(),
	}
	o.Exact = workExact && o.Source == busy.Cpuacct
	if o.Source == busy.ProcStat {
		o.ResolutionS = 2 * procfs.Tick.Seconds() * float64(o.CPUs)
	}
	o.S = max(0, o.BusyS-o.WorkS-o.OwnS)
	if o.CPUs > 0 {
		o.Share = min(1, o.S/(o.WindowS*float64(o.CPUs)))
	}
	o.KernelS, o.KernelThreads = kernelBetween(before.Kernel, after.Kernel)
	if before.Steal != nil && after.Steal != nil {
		for cpu, t := range after.Steal {
			steal += max(0, t-before.Steal[cpu])
		}
		s := steal.Seconds()
		o.StealS = &s
	}
	return o
}

// kernelBetween is the time the target's own per-CPU kernel threads ran
// between two readings, and each one's that ran, most first. A thread
// read only once (it ended in the window) is left out: its time is not
// known, and stays with the others'.
func kernelBetween(before, after []busy.KernelThread) (float64, []evidence.Preemptor) {
	at := map[int]time.Duration{}
	for _, k := range before {
		at[k.PID] = k.Run
	}
	var sum time.Duration
	var ran []evidence.Preemptor
	for _, k := range after {
		from, ok := at[k.PID]
		if !ok || k.Run <= from {
			continue
		}
		sum += k.Run - from
		ran = append(ran, evidence.Preemptor{PID: k.PID, Comm: k.Comm, OnCPUS: (k.Run - from).Seconds()})
	}
	slices.SortFunc(ran, func(a, b evidence.Preemptor) int {
		return cmp.Or(cmp.Compare(b.OnCPUS, a.OnCPUS), cmp.Compare(a.PID, b.PID))
	})
	return sum.Seconds(), ran
}

// TreeWindow is what was read of a command's run around it, for the
// others' time on its target: the target's busy time just before the
// fork and once the tree had ended, the run cgroup's account at the
// first reading, and corepin's own forking thread's time on the target
// after it, outside the work's account.
type TreeWindow struct {
	Before, After busy.Reading
	// CgroupBefore is the run cgroup's account at the first reading: the
	// starting thread's time in it before the window, which is not the
	// work's time in the window (nil without a cgroup account).
	CgroupBefore *CgroupAccount
	Own          time.Duration
}

// CgroupAccount is a run cgroup's CPU account at one moment.
type CgroupAccount struct {
	PerCPU map[int]time.Duration // v1 cpuacct's, nil elsewhere
	Total  time.Duration
	OK     bool
}

// OthersOfTree is the others' time on cpus during a command's run: the
// window's busy time, less the tree's own time there (TreeOnTarget) and
// corepin's own.
func OthersOfTree(s *evidence.Scheduling, cpus cpuset.Set, w TreeWindow) *evidence.Others {
	work, src, exact := TreeOnTarget(s, cpus)
	if src == "cgroup" {
		work = max(0, work-w.CgroupBefore.onTarget(s, cpus))
	}
	return OthersBetween(w.Before, w.After, work, w.Own, src, exact)
}

// onTarget is the part of the cgroup's account on cpus at the reading, as
// TreeOnTarget counts the whole: per CPU where the report has the split,
// else all of it. 0 for no reading.
func (c *CgroupAccount) onTarget(s *evidence.Scheduling, cpus cpuset.Set) time.Duration {
	if c == nil {
		return 0
	}
	if tr := s.Tree; tr != nil && len(tr.PerCPUSeconds) > 0 {
		var d time.Duration
		for cpu, v := range c.PerCPU {
			if cpus.Contains(cpu) {
				d += v
			}
		}
		return d
	}
	if c.OK {
		return c.Total
	}
	return 0
}

// TreeOnTarget is the tree's CPU time on cpus and how it is known: the
// cgroup's per-CPU account (v1 cpuacct), the cgroup's whole account where
// its cpuset held the tree to cpus, or else the command's rusage placed
// on the target by the residency. exact says the figure misses nothing.
func TreeOnTarget(s *evidence.Scheduling, cpus cpuset.Set) (work time.Duration, source string, exact bool) {
	tr := s.Tree
	if tr != nil && len(tr.PerCPUSeconds) > 0 {
		var sum float64
		for cpu, v := range tr.PerCPUSeconds {
			if cpus.Contains(cpu) {
				sum += v
			}
		}
		return durationOf(sum + tr.LeftCgroupOnTargetS), "cgroup", tr.LeftCgroup == 0
	}
	if tr != nil && tr.CPUSeconds != nil && !tr.CgroupCPUs.IsEmpty() && tr.CgroupCPUs.IsSubsetOf(cpus) {
		return durationOf(*tr.CPUSeconds + tr.LeftCgroupOnTargetS), "cgroup", tr.LeftCgroup == 0
	}
	sum := s.Child.UserS + s.Child.SysS
	if tr != nil {
		sum += tr.ReapedCPUS // the orphans corepin reaped: not in the command's rusage
	}
	if c := s.Coverage; c != nil && c.Residency != nil {
		sum *= *c.Residency
	}
	return durationOf(sum), "rusage", false
}

func durationOf(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Ran is one thread's time on one CPU, as the on-CPU tracer counts it.
type Ran struct {
	PID, TID, CPU int
	Comm          string
	OnCPU         time.Duration
}

// Preemptors groups the threads that ran on target by process, leaves
// out the work's own (ours), and keeps the evidence.MaxPreemptors that
// took the most time; below a tenth of a millisecond a process is not
// named.
func Preemptors(ran []Ran, target cpuset.Set, ours func(pid, tid int) bool) []evidence.Preemptor {
	byPID := map[int]*evidence.Preemptor{}
	for _, t := range ran {
		if !target.Contains(t.CPU) || ours(t.PID, t.TID) {
			continue
		}
		p := byPID[t.PID]
		if p == nil {
			p = &evidence.Preemptor{PID: t.PID, Comm: t.Comm}
			byPID[t.PID] = p
		}
		if t.TID == t.PID {
			p.Comm = t.Comm // the process's own name, where its main thread ran
		}
		p.OnCPUS += t.OnCPU.Seconds()
	}
	out := []evidence.Preemptor{}
	for _, p := range byPID {
		if p.OnCPUS >= (100 * time.Microsecond).Seconds() {
			out = append(out, *p)
		}
	}
	slices.SortFunc(out, func(a, b evidence.Preemptor) int {
		return cmp.Or(cmp.Compare(b.OnCPUS, a.OnCPUS), cmp.Compare(a.PID, b.PID))
	})
	if len(out) > evidence.MaxPreemptors {
		out = out[:evidence.MaxPreemptors]
	}
	return out
}
