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

// KeepOff moves the calling thread off the given CPUs, so that an observer
// (the telemetry sampler, the watcher) never takes time from the work it
// observes, and returns where the thread may now run. The goroutine must be
// locked to its thread (see Throwaway). Outside Linux it does nothing.
func KeepOff(avoid cpuset.Set) (cpuset.Set, error) {
	mask, err := GetAffinity(0)
	if errors.Is(err, errors.ErrUnsupported) {
		return cpuset.Set{}, nil
	}
	if err != nil {
		return cpuset.Set{}, err
	}
	if avoid.IsEmpty() {
		return mask, nil
	}
	off := mask.Difference(avoid)
	if off.IsEmpty() {
		return mask, fmt.Errorf("keeping off CPUs %s: %w (allowed: %s)", avoid, ErrNoOtherCPU, mask)
	}
	if err := SetAffinity(0, off); err != nil {
		return mask, fmt.Errorf("keeping off CPUs %s: %w", avoid, err)
	}
	return off, nil
}
