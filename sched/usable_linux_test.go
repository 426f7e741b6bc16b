package sched

import (
	"os"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
)

// sched's tests read the CPUs they may use themselves: testcpu reads them
// through topology, which asks sched for the process's mask, and a test of
// sched cannot import what imports sched.

// usableNow is the online CPUs this process may run on.
func usableNow() (cpuset.Set, error) {
	text, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return cpuset.Set{}, err
	}
	online, err := cpuset.Parse(strings.TrimSpace(string(text)))
	if err != nil {
		return cpuset.Set{}, err
	}
	mask, err := GetAffinity(os.Getpid())
	if err != nil {
		return cpuset.Set{}, err
	}
	return online.Intersect(mask), nil
}

// otherCPU is a usable CPU other than the first, skipping the test unless
// one is left for everything else.
func otherCPU(t *testing.T) int {
	t.Helper()
	usable, err := usableNow()
	if err != nil {
		t.Fatalf("reading the usable CPUs: %v", err)
	}
	if usable.Len() < 2 {
		t.Skipf("needs 2 usable CPUs, this process may use %s", usable)
	}
	return usable.Last()
}
