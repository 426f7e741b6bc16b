package sched

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/cpuset"
)

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
		return mask, fmt.Errorf("cannot keep off CPUs %s: they are all this thread may use (%s)", avoid, mask)
	}
	if err := SetAffinity(0, off); err != nil {
		return mask, fmt.Errorf("keeping off CPUs %s: %w", avoid, err)
	}
	return off, nil
}
