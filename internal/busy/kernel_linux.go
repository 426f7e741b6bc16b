package busy

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/sched"
)

// kthreadd is the PID of the kernel's thread that starts the others: a
// kernel thread is its child, when its stat flags do not say PF_KTHREAD.
const kthreadd = 2

// kernelThread is a per-CPU kernel thread of the target, with its
// schedstat file kept open: a read of it then costs one pread, and fails
// (ESRCH) once the thread is gone, so that a PID the kernel gave to
// another task is never read as this one.
type kernelThread struct {
	pid  int
	comm string
	f    *os.File
}

// findKernelThreads opens the schedstat of every kernel thread allowed on
// cpus alone (migration/N, ksoftirqd/N, cpuhp/N, kworker/N:M), once
// before a run, off its window. It is on the path of every start, so it
// reads as little as it can: kthreadd's children where the kernel lists
// them (CONFIG_PROC_CHILDREN), not every process, and each one's allowed
// CPUs (see allowed) before any of its files. A task that cannot be read
// is passed over: it is no kernel thread of ours to count, and its time
// stays with the others'.
func findKernelThreads(root fsroot.Root, cpus cpuset.Set) []kernelThread {
	pids, err := procfs.Children(root, kthreadd, kthreadd)
	if err != nil {
		if pids, err = procfs.PIDs(root); err != nil {
			return nil
		}
	}
	var out []kernelThread
	for _, pid := range pids {
		mask, err := allowed(root, pid)
		if err != nil || mask.IsEmpty() || !mask.IsSubsetOf(cpus) {
			continue
		}
		st, err := procfs.ReadTaskStat(root, pid)
		if err != nil || !(st.Kernel() || st.PPid == kthreadd) {
			continue
		}
		p := strconv.Itoa(pid)
		f, err := os.Open(root.Path("/proc/" + p + "/task/" + p + "/schedstat"))
		if err != nil {
			continue
		}
		out = append(out, kernelThread{pid: pid, comm: st.Comm, f: f})
	}
	return out
}

// allowed reads the CPUs task pid may run on. On the live system it asks
// the kernel (sched_getaffinity), which costs a tenth of reading a /proc
// file: most of a scan's tasks are passed over on this alone. Under
// another root, or where a security module refuses the call but not the
// file (an Android shell's SELinux domain may), it reads the task's
// status file.
func allowed(root fsroot.Root, pid int) (cpuset.Set, error) {
	if root.IsHost() {
		mask, err := sched.GetAffinity(pid)
		if err == nil || errors.Is(err, unix.ESRCH) {
			return mask, err
		}
	}
	status, err := procfs.ReadStatus(root, pid)
	if err != nil {
		return cpuset.Set{}, err
	}
	return cpuset.Parse(status.CPUsAllowed)
}

// readKernel reads each kernel thread's run time; one that is gone or
// cannot be read is left out.
func readKernel(ks []kernelThread) []KernelThread {
	if len(ks) == 0 {
		return nil
	}
	out := make([]KernelThread, 0, len(ks))
	var buf [128]byte
	for _, k := range ks {
		// A whole file, shorter than buf, ends in io.EOF; a thread that
		// is gone reads nothing (ESRCH).
		n, _ := k.f.ReadAt(buf[:], 0)
		s, err := procfs.ParseSchedStat(buf[:n])
		if err != nil {
			continue
		}
		out = append(out, KernelThread{PID: k.pid, Comm: k.comm, Run: s.Run})
	}
	return out
}

func closeKernel(ks []kernelThread) {
	for _, k := range ks {
		k.f.Close()
	}
}
