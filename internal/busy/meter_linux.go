package busy

import (
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
)

// Meter reads the target's busy time: from the root cpuacct account
// where a cpuacct hierarchy is mounted whole (its root is the machine's,
// not a container's part), else from /proc/stat.
type Meter struct {
	root    fsroot.Root
	cpus    cpuset.Set
	cpuacct string // the root account's file; "" for /proc/stat alone
	kernel  []kernelThread
}

// NewMeter is a meter of cpus under root, with the cgroup hierarchies h
// (nil where they could not be read: /proc/stat alone). It finds the
// target's own per-CPU kernel threads now, with a scan of /proc that has
// no place between a run's readings; Close lets go of them.
func NewMeter(root fsroot.Root, h *cgroupfs.Hierarchies, cpus cpuset.Set) *Meter {
	b := &Meter{root: root, cpus: cpus, kernel: findKernelThreads(root, cpus)}
	if h == nil {
		return b
	}
	if m, ok := h.Whole("cpuacct"); ok {
		b.cpuacct = root.Path(filepath.Join(m.Dir, "cpuacct.usage_percpu"))
	}
	return b
}

// Close closes the kernel threads' files; the meter reads no more of
// them after it.
func (b *Meter) Close() {
	closeKernel(b.kernel)
	b.kernel = nil
}

// CPUs are the CPUs the meter reads.
func (b *Meter) CPUs() cpuset.Set { return b.cpus }

// Read takes one reading; ok is false when neither source could be read.
// Its moment is the busy time's own read, and the calling thread's CPU
// time is read beside it, so that work on that thread can be counted over
// the same window; the steal ticks and the kernel threads' run times are
// read after.
func (b *Meter) Read() (r Reading, ok bool) {
	r, ok = b.readBusy()
	r.Kernel = readKernel(b.kernel)
	return r, ok
}

// readBusy reads the busy time, the reading thread's and the steal.
func (b *Meter) readBusy() (r Reading, ok bool) {
	if b.cpuacct != "" {
		r.At, r.Wall = monotonic(), time.Now()
		data, err := fsroot.ReadFile(b.cpuacct)
		r.Self = ThreadCPU()
		if err == nil {
			if per, err := cgroupfs.ParseUsagePerCPU(data); err == nil {
				r.Tasks, r.Source = map[int]time.Duration{}, Cpuacct
				for _, cpu := range b.cpus.CPUs() {
					r.Tasks[cpu] = per[cpu]
				}
			}
		}
	}
	if r.Source == "" {
		r.At, r.Wall = monotonic(), time.Now()
	}
	stat, statErr := procfs.ReadStat(b.root)
	if statErr == nil {
		r.Steal = map[int]time.Duration{}
		for _, cpu := range b.cpus.CPUs() {
			r.Steal[cpu] = time.Duration(stat[cpu].Steal) * procfs.Tick
		}
	}
	if r.Source == Cpuacct {
		return r, true
	}
	r.Self = ThreadCPU()
	if statErr != nil {
		return r, false
	}
	r.Tasks, r.Source = map[int]time.Duration{}, ProcStat
	for _, cpu := range b.cpus.CPUs() {
		r.Tasks[cpu] = time.Duration(stat[cpu].Tasks()) * procfs.Tick
	}
	return r, true
}

// ThreadCPU is the calling thread's CPU time.
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// monotonic is CLOCK_MONOTONIC, the tracer's and the launcher's clock.
func monotonic() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}
