package topology

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
)

// processMask is the process's allowed CPUs: its main thread's mask, which
// Cpus_allowed_list of /proc/self/status shows, read with one system call.
func processMask() (cpuset.Set, error) {
	var mask unix.CPUSet
	if err := unix.SchedGetaffinity(os.Getpid(), &mask); err != nil {
		return cpuset.Set{}, fmt.Errorf("reading the allowed CPUs: %w", err)
	}
	var cpus []int
	for cpu := range len(mask) * 64 {
		if mask.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	return cpuset.Of(cpus...), nil
}
