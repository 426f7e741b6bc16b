package topology

import (
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/sysfstest"
)

func TestCoreSiblings(t *testing.T) {
	for _, tc := range []struct {
		machine string
		cpus    cpuset.Set
		want    cpuset.Set
	}{
		{"intel-hybrid-4p8e", cpuset.Of(1), cpuset.Range(0, 1)}, // a P-core's second thread
		{"intel-hybrid-4p8e", cpuset.Of(6), cpuset.Range(6, 7)},
		{"intel-hybrid-4p8e", cpuset.Of(9), cpuset.Of(9)}, // an E-core has one thread
		{"intel-hybrid-4p8e", cpuset.Of(2, 9), cpuset.Of(2, 3, 9)},
		{"sgu-al10", cpuset.Of(12), cpuset.Range(12, 13)},
		{"vm-2cpu", cpuset.Of(1), cpuset.Of(1)},
		{"intel-hybrid-4p8e", cpuset.Of(15), cpuset.Of(15)}, // offline: no topology files
	} {
		got, err := CoreSiblings(fsroot.Root(machineRoot(tc.machine)), tc.cpus)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%s: CoreSiblings(%s) = %s, %v; want %s", tc.machine, tc.cpus, got, err, tc.want)
		}
	}
}

// On every real dump, the quick read agrees with the full one for every
// online CPU.
func TestCoreSiblingsAgreesWithRead(t *testing.T) {
	for _, name := range sysfstest.Names(t) {
		root := sysfstest.Unpack(t, name)
		topo, err := Read(fsroot.Root(root))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range topo.CPUs {
			if !c.Online {
				continue
			}
			got, err := CoreSiblings(fsroot.Root(root), cpuset.Of(c.ID))
			if want := topo.WholeCores(cpuset.Of(c.ID)); err != nil || !got.Equal(want) {
				t.Errorf("%s CPU %d: CoreSiblings %s (%v), Read's siblings %s", name, c.ID, got, err, want)
			}
		}
	}
}
