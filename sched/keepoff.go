package sched

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/cpuset"
)

// ErrNoOtherCPU is returned by KeepOff when every CPU the thread may use
// is one it should avoid (a one-CPU machine, or a process confined to the
// target by taskset or a cpuset). The thread is left where it was; callers
// carry on sharing the CPU and say so.
var ErrNoOtherCPU = errors.New("no CPU to move to: every allowed CPU is to be avoided")

// Placement is where KeepOff put an observer's thread.
type Placement struct {
	CPUs cpuset.Set // where the thread may now run
	// OnCore is set when the thread could keep off the avoided CPUs only,
	// not off their whole cores: it runs on an SMT sibling of the work.
	OnCore bool
}

// OffCPUs decides where a thread allowed on mask goes to keep off avoid:
// off the whole cores (avoid and its SMT siblings, core) where any CPU is
// left, else off avoid alone (onCore), else nowhere (ErrNoOtherCPU).
func OffCPUs(mask, avoid, core cpuset.Set) (off cpuset.Set, onCore bool, err error) {
	core = core.Union(avoid)
	if off := mask.Difference(core); !off.IsEmpty() {
		return off, false, nil
	}
	if off := mask.Difference(avoid); !off.IsEmpty() {
		return off, true, nil
	}
	return mask, false, fmt.Errorf("keeping off CPUs %s: %w (allowed: %s)", avoid, ErrNoOtherCPU, mask)
}

// KeepOff moves the calling thread off the given CPUs and, where it can,
// off their SMT siblings (core holds avoid and its siblings), so that an
// observer (the telemetry sampler, the watcher) never takes time from the
// work it observes, and returns where the thread may now run. The
// goroutine must be locked to its thread (see Throwaway). Outside Linux it
// does nothing.
func KeepOff(avoid, core cpuset.Set) (Placement, error) {
	mask, err := GetAffinity(0)
	if errors.Is(err, errors.ErrUnsupported) {
		return Placement{}, nil
	}
	if err != nil {
		return Placement{}, err
	}
	if avoid.IsEmpty() {
		return Placement{CPUs: mask}, nil
	}
	off, onCore, err := OffCPUs(mask, avoid, core)
	if err != nil {
		return Placement{CPUs: mask}, err
	}
	if err := SetAffinity(0, off); err != nil {
		return Placement{CPUs: mask}, fmt.Errorf("keeping off CPUs %s: %w", avoid, err)
	}
	return Placement{CPUs: off, OnCore: onCore}, nil
}
