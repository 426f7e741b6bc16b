package topology

import (
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
)

// processMask is the process's allowed CPUs: its main thread's mask, which
// Cpus_allowed_list of /proc/self/status shows, or while corepin keeps its
// own threads off a run's target, the mask they had before (sched
// keeps it), so that a run beside another chooses by what the process was
// given.
func processMask() (cpuset.Set, error) {
	mask, err := sched.InheritedMask()
	if err != nil {
		return cpuset.Set{}, fmt.Errorf("reading the allowed CPUs: %w", err)
	}
	return mask, nil
}
