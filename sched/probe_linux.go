package sched

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
)

// onThrowawayThread runs f on a new locked thread that is destroyed when f
// returns: the goroutine exits without unlocking, so whatever f changed can
// never reach another goroutine.
func onThrowawayThread(f func()) {
	done := make(chan struct{})
	go func() {
		release := Throwaway()
		defer close(done)
		defer release()
		f()
	}()
	<-done
}

// Uclamp reports whether per-task utilisation clamping works here (see
// UclampAt). The answer is found once per process.
func Uclamp() Feature { return hostUclamp() }

var hostUclamp = sync.OnceValue(func() Feature { return UclampAt(fsroot.Host) })

// UclampAt reports whether per-task utilisation clamping works on the
// system under root. The read-back cannot tell (a kernel without uclamp
// reads 0/0). The kernel creates the sched_util_clamp_min sysctl exactly
// when it has uclamp (CONFIG_UCLAMP_TASK), so that answers without a
// system call; only where /proc/sys cannot be read on the live system is a
// clamp tried on a throwaway thread.
func UclampAt(root fsroot.Root) Feature {
	if _, err := root.Stat("/proc/sys/kernel/sched_util_clamp_min"); err == nil {
		return Feature{true, "/proc/sys/kernel/sched_util_clamp_min exists"}
	}
	if _, err := root.Stat("/proc/sys/kernel/pid_max"); err == nil {
		return Feature{false, "no /proc/sys/kernel/sched_util_clamp_min: the kernel was built without CONFIG_UCLAMP_TASK (sched_setattr with UTIL_CLAMP fails with EOPNOTSUPP)"}
	}
	if !root.IsHost() {
		return Feature{false, "unknown: " + root.Path("/proc/sys/kernel") + " cannot be read"}
	}
	var err error
	onThrowawayThread(func() { err = SetUclamp(0, 0, UclampMax, false) })
	switch {
	case err == nil:
		return Feature{true, "a uclamp request on a probe thread was accepted"}
	case errors.Is(err, unix.EOPNOTSUPP):
		return Feature{false, "sched_setattr with UTIL_CLAMP fails with EOPNOTSUPP (kernel built without CONFIG_UCLAMP_TASK)"}
	default:
		return Feature{false, "a uclamp request on a probe thread failed: " + err.Error()}
	}
}

// Realtime reports whether this process may put a thread under SCHED_FIFO.
// Root is not enough: with CONFIG_RT_GROUP_SCHED a cpu cgroup whose
// rt_runtime_us is 0 refuses it, so the answer comes from a real request,
// made once per process; RealtimeFacts is the evidence beside it.
func Realtime() Feature { return hostRealtime() }

var hostRealtime = sync.OnceValue(func() Feature {
	var err error
	onThrowawayThread(func() {
		err = SetAttr(0, Attr{Policy: FIFO, Priority: 1, Flags: FlagResetOnFork})
	})
	facts := RealtimeFacts(fsroot.Host)
	if err != nil {
		return Feature{false, "SCHED_FIFO 1 on a probe thread: " + errnoName(err) + "; " + strings.Join(facts, ", ")}
	}
	return Feature{true, "SCHED_FIFO 1 on a probe thread was accepted; " + strings.Join(facts, ", ")}
})

// RealtimeFacts are what allows or refuses realtime to this process on the
// system under root: CAP_SYS_NICE (from /proc/self/status),
// RLIMIT_RTPRIO, and the RT runtime of its cpu cgroup where there is one.
func RealtimeFacts(root fsroot.Root) []string {
	facts := []string{CapSysNiceFact(root), rlimitFact(unix.RLIMIT_RTPRIO, "RLIMIT_RTPRIO")}
	if rt := RTRuntimeFact(root); rt != "" {
		facts = append(facts, rt)
	}
	return facts
}

// PriorityFacts are what allows or refuses raising a thread's priority
// (nice below 0, realtime, a uclamp raise where the kernel checks it) to
// this process: "no CAP_SYS_NICE, RLIMIT_NICE=0, RLIMIT_RTPRIO=0".
func PriorityFacts(root fsroot.Root) string {
	return CapSysNiceFact(root) + ", " + rlimitFact(unix.RLIMIT_NICE, "RLIMIT_NICE") + ", " + rlimitFact(unix.RLIMIT_RTPRIO, "RLIMIT_RTPRIO")
}

// NiceLowering reports whether this process may lower a thread's nice value
// (and so restore one it raised): CAP_SYS_NICE or a large RLIMIT_NICE. The
// answer comes from a real request, made once per process.
func NiceLowering() Feature { return hostNiceLowering() }

var hostNiceLowering = sync.OnceValue(func() Feature {
	var err error
	onThrowawayThread(func() {
		if err = SetNice(0, 1); err == nil {
			err = SetNice(0, -1)
		}
	})
	facts := CapSysNiceFact(fsroot.Host) + ", " + rlimitFact(unix.RLIMIT_NICE, "RLIMIT_NICE")
	if err != nil {
		return Feature{false, "nice 1 then -1 on a probe thread: " + errnoName(err) + "; " + facts}
	}
	return Feature{true, "nice 1 then -1 on a probe thread were accepted; " + facts}
})

// Slice reports whether a fair thread may request its own EEVDF slice
// through sched_attr.sched_runtime (Linux 6.12 and later), from a real
// request made once per process.
func Slice() Feature { return hostSlice() }

var hostSlice = sync.OnceValue(func() Feature {
	var got Attr
	var err error
	onThrowawayThread(func() {
		if err = SetAttr(0, Attr{Policy: Normal, Runtime: 3_000_000}); err == nil {
			got, err = GetAttr(0)
		}
	})
	switch {
	case err != nil:
		return Feature{false, "a 3 ms slice request failed: " + errnoName(err)}
	case got.Runtime == 3_000_000:
		return Feature{true, "a 3 ms slice request reads back as 3000000 ns"}
	default:
		return Feature{false, fmt.Sprintf("a 3 ms slice request reads back as %d ns (kernel before 6.12)", got.Runtime)}
	}
})

// CapSysNiceFact says whether the process has CAP_SYS_NICE, from CapEff
// of /proc/self/status under root.
func CapSysNiceFact(root fsroot.Root) string {
	data, err := root.ReadFile("/proc/self/status")
	if err != nil {
		return "capabilities unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err == nil && caps&(1<<unix.CAP_SYS_NICE) != 0 {
				return "CAP_SYS_NICE held"
			}
			return "no CAP_SYS_NICE"
		}
	}
	return "capabilities unknown"
}

func rlimitFact(resource int, name string) string {
	var lim unix.Rlimit
	if err := unix.Getrlimit(resource, &lim); err != nil {
		return name + " unknown"
	}
	if lim.Cur == unix.RLIM_INFINITY {
		return name + "=unlimited"
	}
	return fmt.Sprintf("%s=%d", name, lim.Cur)
}

// RTRuntimeFact reads the RT runtime of the process's cpu cgroup (v1 with
// CONFIG_RT_GROUP_SCHED) under root; a 0 there refuses realtime even to
// root. It is "" where there is none.
func RTRuntimeFact(root fsroot.Root) string {
	h, err := cgroupfs.Find(root)
	if err != nil {
		return ""
	}
	m, ok := h.V1("cpu")
	if !ok {
		return ""
	}
	dir := h.OwnDir(m)
	if dir == "" {
		return ""
	}
	v, err := root.ReadFile(filepath.Join(dir, "cpu.rt_runtime_us"))
	if err != nil {
		return ""
	}
	return "cgroup " + h.Own["cpu"] + " cpu.rt_runtime_us=" + strings.TrimSpace(string(v))
}

// errnoName returns the errno's symbolic name ("EPERM") where there is one.
func errnoName(err error) string {
	if name := ErrnoName(err); name != "" {
		return name
	}
	return err.Error()
}

// DefaultSlice returns the EEVDF base slice a fair thread gets when it asks
// for none (0 before Linux 6.12, where sched_runtime means nothing for fair
// threads). A captured slice that differs from it was asked for, and must
// be written back on restore; any other must be restored as 0, or the
// restore would pin the default as a custom slice. It is found once per
// process.
func DefaultSlice() uint64 { return hostDefaultSlice() }

var hostDefaultSlice = sync.OnceValue(func() uint64 {
	var a Attr
	onThrowawayThread(func() {
		if SetAttr(0, Attr{Policy: Normal}) == nil {
			a, _ = GetAttr(0)
		}
	})
	return a.Runtime
})
