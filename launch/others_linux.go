package launch

import (
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
)

// busyReading is how long the target CPUs had been busy at one moment.
type busyReading struct {
	at     time.Duration         // CLOCK_MONOTONIC
	wall   time.Time             // the same moment on the wall clock
	self   time.Duration         // the reading thread's CPU time then
	tasks  map[int]time.Duration // per target CPU, every task's time
	steal  map[int]time.Duration // per target CPU, nil where unknown
	source string                // BusyCpuacct or BusyProcStat
}

// busyMeter reads the target's busy time: from the root cpuacct account
// where a cpuacct hierarchy is mounted whole (its root is the machine's,
// not a container's part), else from /proc/stat.
type busyMeter struct {
	root    fsroot.Root
	cpus    cpuset.Set
	cpuacct string // the root account's file; "" for /proc/stat alone
}

func newBusyMeter(root fsroot.Root, h *cgroupfs.Hierarchies, cpus cpuset.Set) *busyMeter {
	b := &busyMeter{root: root, cpus: cpus}
	if h == nil {
		return b
	}
	if m, ok := h.Whole("cpuacct"); ok {
		b.cpuacct = root.Path(filepath.Join(m.Dir, "cpuacct.usage_percpu"))
	}
	return b
}

// read takes one reading; ok is false when neither source could be read.
// Its moment is the busy time's own read, and the calling thread's CPU
// time is read beside it, so that work on that thread can be counted over
// the same window; the steal ticks are read after.
func (b *busyMeter) read() (r busyReading, ok bool) {
	if b.cpuacct != "" {
		r.at, r.wall = monotonic(), time.Now()
		data, err := fsroot.ReadFile(b.cpuacct)
		r.self = threadCPU()
		if err == nil {
			if per, err := cgroupfs.ParseUsagePerCPU(data); err == nil {
				r.tasks, r.source = map[int]time.Duration{}, BusyCpuacct
				for _, cpu := range b.cpus.CPUs() {
					r.tasks[cpu] = per[cpu]
				}
			}
		}
	}
	if r.source == "" {
		r.at, r.wall = monotonic(), time.Now()
	}
	stat, statErr := procfs.ReadStat(b.root)
	if statErr == nil {
		r.steal = map[int]time.Duration{}
		for _, cpu := range b.cpus.CPUs() {
			r.steal[cpu] = time.Duration(stat[cpu].Steal) * procfs.Tick
		}
	}
	if r.source == BusyCpuacct {
		return r, true
	}
	r.self = threadCPU()
	if statErr != nil {
		return r, false
	}
	r.tasks, r.source = map[int]time.Duration{}, BusyProcStat
	for _, cpu := range b.cpus.CPUs() {
		r.tasks[cpu] = time.Duration(stat[cpu].Tasks()) * procfs.Tick
	}
	return r, true
}

// others is the target's time between two readings that did not go to
// the work, which had work of it, nor to corepin's own starting thread,
// which had own of it; nil when the readings are of different sources or
// the window is empty.
func others(before, after busyReading, work, own time.Duration, workSource string, workExact bool) *Others {
	if before.source != after.source || after.at <= before.at {
		return nil
	}
	var busy, steal time.Duration
	for cpu, t := range after.tasks {
		busy += max(0, t-before.tasks[cpu])
	}
	o := &Others{
		From: before.wall, Source: after.source, WorkSource: workSource, CPUs: len(after.tasks),
		BusyS: busy.Seconds(), WorkS: work.Seconds(), OwnS: own.Seconds(), WindowS: (after.at - before.at).Seconds(),
	}
	o.Exact = workExact && o.Source == BusyCpuacct
	if o.Source == BusyProcStat {
		o.ResolutionS = 2 * procfs.Tick.Seconds() * float64(o.CPUs)
	}
	o.S = max(0, o.BusyS-o.WorkS-o.OwnS)
	if o.CPUs > 0 {
		o.Share = min(1, o.S/(o.WindowS*float64(o.CPUs)))
	}
	if before.steal != nil && after.steal != nil {
		for cpu, t := range after.steal {
			steal += max(0, t-before.steal[cpu])
		}
		s := steal.Seconds()
		o.StealS = &s
	}
	return o
}

// threadCPU is the calling thread's CPU time, in nanoseconds.
func threadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// othersOnTarget is the others' time on the target during the run of a
// command: the tree's readings, less the tree's own time there.
func (t *tree) othersOnTarget(rep *Report, cpus cpuset.Set) *Others {
	if !t.haveBusy {
		return nil
	}
	work, src, exact := treeOnTarget(rep, cpus)
	if src == "cgroup" {
		work = max(0, work-t.cgBefore.onTarget(rep, cpus))
	}
	return others(t.before, t.after, work, t.ownOnTarget(), src, exact)
}

// cgroupReading is the run cgroup's CPU account at one moment.
type cgroupReading struct {
	perCPU map[int]time.Duration // v1 cpuacct's, nil elsewhere
	total  time.Duration
	ok     bool
}

// onTarget is the part of the cgroup's account on cpus at the reading, as
// treeOnTarget counts the whole: per CPU where the report has the split,
// else all of it. 0 for no reading.
func (c *cgroupReading) onTarget(rep *Report, cpus cpuset.Set) time.Duration {
	if c == nil {
		return 0
	}
	if tr := rep.Tree; tr != nil && len(tr.PerCPUSeconds) > 0 {
		var d time.Duration
		for cpu, v := range c.perCPU {
			if cpus.Contains(cpu) {
				d += v
			}
		}
		return d
	}
	if c.ok {
		return c.total
	}
	return 0
}

// treeOnTarget is the tree's CPU time on cpus and how it is known: the
// cgroup's per-CPU account (v1 cpuacct), the cgroup's whole account where
// its cpuset held the tree to cpus, or else the command's rusage placed
// on the target by the residency.
func treeOnTarget(rep *Report, cpus cpuset.Set) (time.Duration, string, bool) {
	tr := rep.Tree
	if tr != nil && len(tr.PerCPUSeconds) > 0 {
		var s float64
		for cpu, v := range tr.PerCPUSeconds {
			if cpus.Contains(cpu) {
				s += v
			}
		}
		return seconds(s + tr.LeftCgroupOnTargetS), "cgroup", tr.LeftCgroup == 0
	}
	if tr != nil && tr.CPUSeconds != nil && !tr.CgroupCPUs.IsEmpty() && tr.CgroupCPUs.IsSubsetOf(cpus) {
		return seconds(*tr.CPUSeconds + tr.LeftCgroupOnTargetS), "cgroup", tr.LeftCgroup == 0
	}
	s := rep.Child.UserS + rep.Child.SysS
	if tr != nil {
		s += tr.ReapedCPUS // the orphans corepin reaped: not in the command's rusage
	}
	if c := rep.Coverage; c != nil && c.Residency != nil {
		s *= *c.Residency
	}
	return seconds(s), "rusage", false
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
