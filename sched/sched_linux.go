package sched

import (
	"errors"
	"math/bits"
	"os"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// Gettid returns the calling thread's id.
func Gettid() int { return unix.Gettid() }

// Getpid returns the process id.
func Getpid() int { return unix.Getpid() }

// retry repeats a call interrupted by a signal, as runc's wrappers do.
func retry(f func() error) error {
	for {
		err := f()
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// GetAttr reads a thread's sched_attr.
func GetAttr(tid int) (Attr, error) {
	var a *unix.SchedAttr
	err := retry(func() (err error) { a, err = unix.SchedGetAttr(tid, 0); return })
	if err != nil {
		return Attr{}, os.NewSyscallError("sched_getattr", err)
	}
	return Attr{
		Policy: Policy(a.Policy), Priority: int(a.Priority), Nice: int(a.Nice), Flags: a.Flags,
		Runtime: a.Runtime, Deadline: a.Deadline, Period: a.Period,
		UtilMin: a.Util_min, UtilMax: a.Util_max,
	}, nil
}

// SetAttr writes a thread's sched_attr. The kernel changes all of it or
// nothing: a request that includes uclamp fails whole with EOPNOTSUPP on a
// kernel without uclamp, so callers send uclamp in a call of its own.
func SetAttr(tid int, a Attr) error {
	ua := &unix.SchedAttr{
		Policy: uint32(a.Policy), Flags: a.Flags, Nice: int32(a.Nice), Priority: uint32(a.Priority),
		Runtime: a.Runtime, Deadline: a.Deadline, Period: a.Period,
		Util_min: a.UtilMin, Util_max: a.UtilMax,
	}
	return os.NewSyscallError("sched_setattr", retry(func() error { return unix.SchedSetAttr(tid, ua, 0) }))
}

// SetUclamp changes only a thread's uclamp, keeping its policy and
// parameters (KEEP_ALL). resetOnFork must be the thread's current
// RESET_ON_FORK bit.
func SetUclamp(tid int, lo, hi uint32, resetOnFork bool) error {
	a := Attr{Flags: FlagKeepAll | FlagUtilClamp, UtilMin: lo, UtilMax: hi}
	if resetOnFork {
		a.Flags |= FlagResetOnFork
	}
	return SetAttr(tid, a)
}

// possibleCPUs sizes affinity masks: unix.CPUSet holds only 1024 CPUs.
var possibleCPUs = sync.OnceValue(func() int {
	n := runtime.NumCPU()
	if data, err := fsroot.ReadFile("/sys/devices/system/cpu/possible"); err == nil {
		if s, err := cpuset.Parse(string(data)); err == nil && s.Last()+1 > n {
			n = s.Last() + 1
		}
	}
	return max(n, 1024)
})

// GetAffinity reads a thread's effective CPU mask: what it asked for, cut
// down by the kernel to its cpuset and the active CPUs.
func GetAffinity(tid int) (cpuset.Set, error) {
	set := unix.NewCPUSet(possibleCPUs())
	if err := retry(func() error { return unix.SchedGetaffinityDynamic(tid, set) }); err != nil {
		return cpuset.Set{}, os.NewSyscallError("sched_getaffinity", err)
	}
	return cpuset.Of(cpusIn(set)...), nil
}

// cpusIn lists the CPUs of set a word at a time: a mask sized for the
// possible CPUs (1,024 or more) is mostly zeros, and reading a mask is on
// the path of every launch. A word is a machine word (x/sys's cpuMask).
func cpusIn(set unix.CPUSetDynamic) []int {
	var cpus []int
	for i, w := range set {
		for m := uint64(w); m != 0; m &= m - 1 {
			cpus = append(cpus, i*bits.UintSize+bits.TrailingZeros64(m))
		}
	}
	return cpus
}

// SetAffinity sets a thread's CPU mask. The kernel silently drops CPUs
// outside the thread's cpuset; read the mask back to see what it kept.
func SetAffinity(tid int, cpus cpuset.Set) error {
	set := unix.NewCPUSet(max(possibleCPUs(), cpus.Last()+1))
	for _, c := range cpus.CPUs() {
		set.Set(c)
	}
	return os.NewSyscallError("sched_setaffinity", retry(func() error { return unix.SchedSetaffinityDynamic(tid, set) }))
}

// GetNice reads a thread's nice value. The raw getpriority call returns
// 20-nice and x/sys passes that through; this returns the nice value.
func GetNice(tid int) (int, error) {
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return 0, os.NewSyscallError("getpriority", err)
	}
	return 20 - raw, nil
}

// SetNice sets one thread's nice value (PRIO_PROCESS with a TID renices
// exactly that thread). Lowering it without privilege fails with EACCES.
func SetNice(tid, nice int) error {
	return os.NewSyscallError("setpriority", unix.Setpriority(unix.PRIO_PROCESS, tid, nice))
}

// GetCPU returns the CPU the calling thread runs on. x/sys has no wrapper
// for getcpu(2); the raw call is the one place corepin makes it.
func GetCPU() (int, error) {
	var cpu, node uint32
	_, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0)
	if errno != 0 {
		return -1, os.NewSyscallError("getcpu", errno)
	}
	return int(cpu), nil
}

// ThreadCPUTime returns the CPU time a thread of this process has used.
func ThreadCPUTime(tid int) (time.Duration, error) {
	clock := int32(^tid)<<3 | 6 // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)
	if tid == 0 {
		clock = unix.CLOCK_THREAD_CPUTIME_ID
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(clock, &ts); err != nil {
		return 0, os.NewSyscallError("clock_gettime", err)
	}
	return time.Duration(ts.Nano()), nil
}

// Tick returns the kernel's tick, 1/CONFIG_HZ: the coarse clocks advance
// once a tick, so their resolution is its length. A CPU-bound thread that
// the scheduler should set aside runs on until a tick looks at it, so work
// of a few ticks is finished before a priority can act on it.
func Tick() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGetres(unix.CLOCK_MONOTONIC_COARSE, &ts); err != nil {
		return 0, os.NewSyscallError("clock_getres", err)
	}
	return time.Duration(ts.Nano()), nil
}

// ThreadAlive reports whether tid is still a thread of this process; it
// guards against a recorded TID that the kernel has since reused.
func ThreadAlive(tid int) bool {
	return unix.Tgkill(unix.Getpid(), tid, 0) == nil
}

// ProcessAlive reports whether a process exists (signal 0 reaches it).
func ProcessAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// Throwaway locks the calling goroutine to its thread for work that may
// change the thread's mask or attributes, and returns a function to call
// when that work is done, just before the goroutine exits still locked.
// The runtime then destroys the thread, taking the changes with it;
// except the main thread, which it never destroys but parks for good. On
// the main thread the returned function puts the mask and attributes back
// instead, so that the process's main thread (whose mask /proc/PID/status
// and taskset -p show) never keeps what a throwaway goroutine did.
func Throwaway() (done func()) {
	runtime.LockOSThread()
	mask, maskErr := GetAffinity(0)
	attr, attrErr := GetAttr(0)
	return func() {
		if Gettid() != Getpid() {
			return
		}
		if maskErr == nil {
			SetAffinity(0, mask)
		}
		if attrErr == nil {
			a := attr
			a.Flags &= FlagResetOnFork
			if !a.Policy.Realtime() {
				a.Runtime = 0 // the base slice; a custom one is not worth a probe here
			}
			SetAttr(0, a)
		}
	}
}
