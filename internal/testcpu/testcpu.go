// Package testcpu gives corepin's tests the CPUs of the machine they run
// on as corepin itself reads them, so that a test passes on any shape: SMT
// siblings, holes in the online list, a process confined by taskset or a
// cpuset. runtime.NumCPU()-1 is none of these: on an SMT machine it is the
// second thread of a core corepin would not choose, with CPU 1 offline it
// may not exist, under taskset -c 1 it is CPU 0, which the process may not
// use.
package testcpu

import (
	"runtime"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/topology"
)

func read(tb testing.TB) *topology.Topology {
	tb.Helper()
	if runtime.GOOS != "linux" {
		tb.Skip("needs Linux")
	}
	topo, err := topology.ReadForSelection("/")
	if err != nil {
		tb.Fatalf("reading this machine's topology: %v", err)
	}
	return topo
}

// Usable returns the online CPUs this process may run on (online ∩
// Cpus_allowed_list): "all CPUs" for a test.
func Usable(tb testing.TB) cpuset.Set {
	tb.Helper()
	return read(tb).Usable()
}

// Target returns the CPU corepin chooses by default (prime's exact CPU),
// skipping the test unless another usable CPU is left for everything else.
func Target(tb testing.TB) int {
	tb.Helper()
	topo := read(tb)
	if u := topo.Usable(); u.Len() < 2 {
		tb.Skipf("needs 2 usable CPUs, this process may use %s", u)
	}
	target, err := topo.Select("prime")
	if err != nil {
		tb.Fatalf("choosing the default target: %v", err)
	}
	return target.ExactCPU
}

// Others returns the usable CPUs off cpu's whole core (its SMT siblings
// excluded), skipping the test when there are none.
func Others(tb testing.TB, cpu int) cpuset.Set {
	tb.Helper()
	topo := read(tb)
	others := topo.Usable().Difference(topo.WholeCores(cpuset.Of(cpu)))
	if others.IsEmpty() {
		tb.Skipf("needs a usable CPU off the core of CPU %d (usable: %s)", cpu, topo.Usable())
	}
	return others
}

// UsableNow is Usable for a test binary acting as a helper process, which
// has no testing.TB: the online CPUs it may run on, or an error.
func UsableNow() (cpuset.Set, error) {
	topo, err := topology.ReadForSelection("/")
	if err != nil {
		return cpuset.Set{}, err
	}
	return topo.Usable(), nil
}

// OnlineNow is every online CPU, for a helper process that widens its own
// mask as a program resetting its affinity would (its inherited mask is the
// pin it escapes, so Usable would not widen it).
func OnlineNow() (cpuset.Set, error) {
	topo, err := topology.ReadForSelection("/")
	if err != nil {
		return cpuset.Set{}, err
	}
	return topo.Online, nil
}
