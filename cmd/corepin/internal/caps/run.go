package caps

import (
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/sched"
)

// What a run gets: the means of the ladders as this user holds them, each
// from a real request on a throwaway thread, as a run's own thread would
// make it.

// affinity asks for the last CPU this process may use, alone, and reads
// it back: the one means every user has, and all that is left to one
// without CAP_SYS_NICE.
func affinity(root fsroot.Root) (bool, string) {
	if !root.IsHost() {
		return false, "unknown: only a request on " + root.String() + "'s own system can tell"
	}
	var ok bool
	var evidence string
	onThrowaway(func() {
		allowed, err := sched.GetAffinity(0)
		if err != nil || allowed.IsEmpty() {
			evidence = fmt.Sprintf("reading this thread's mask: %v", err)
			return
		}
		one := allowed.Last()
		if err := sched.SetAffinity(0, cpuset.Of(one)); err != nil {
			evidence = fmt.Sprintf("a mask of CPU %d alone on a probe thread: %s", one, sched.ErrnoName(err))
			return
		}
		got, err := sched.GetAffinity(0)
		ok = err == nil && got.Len() == 1 && got.Contains(one)
		evidence = fmt.Sprintf("a mask of CPU %d alone on a probe thread reads back as %s", one, got)
	})
	return ok, evidence
}

// uclampRaise asks for a uclamp minimum of 1024 on a probe thread:
// mainline checks no privilege for it, and some vendors' kernels refuse
// it without CAP_SYS_NICE.
func uclampRaise(root fsroot.Root, supported bool, why string) (bool, string) {
	switch {
	case !supported:
		return false, "no uclamp: " + why
	case !root.IsHost():
		return false, "unknown: only a request on " + root.String() + "'s own system can tell"
	}
	var err error
	var got sched.Attr
	onThrowaway(func() {
		if err = sched.SetUclamp(0, sched.UclampMax, sched.UclampMax, false); err == nil {
			got, err = sched.GetAttr(0)
		}
	})
	switch {
	case err != nil:
		return false, "a uclamp minimum of 1024 on a probe thread: " + err.Error() + "; " + sched.CapSysNiceFact(root)
	case got.UtilMin != sched.UclampMax:
		return false, fmt.Sprintf("a uclamp minimum of 1024 on a probe thread reads back as %d", got.UtilMin)
	}
	return true, "a uclamp minimum of 1024 on a probe thread reads back as 1024; " + sched.CapSysNiceFact(root)
}

// onThrowaway runs f on a thread that dies afterwards, taking whatever f
// changed with it.
func onThrowaway(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		release := sched.Throwaway()
		defer release()
		f()
	}()
	<-done
}

// containment names a launch mechanism as caps says it.
func containment(mechanism string) string {
	switch mechanism {
	case launch.MechanismCgroupV2:
		return "cgroup v2"
	case launch.MechanismCgroupV1:
		return "cgroup v1"
	case launch.MechanismProcessGroup:
		return "process group + subreaper"
	}
	return "unknown"
}

// NotRaised says why a run's priority cannot be raised here, when no means
// of raising it holds (nice below 0, realtime, a uclamp raise); "" when
// one does.
func (c Capabilities) NotRaised() string {
	if c.NiceLowering || c.Realtime || c.UclampRaise {
		return ""
	}
	return "no nice below 0, no realtime, no uclamp raise (" + c.Evidence["priority"] + ")"
}
