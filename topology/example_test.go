package topology_test

import (
	"fmt"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/topology"
)

// Read a machine from a dump of its /sys and /proc (here a phone with one
// prime core, four middle and four little ones), list its performance
// groups, fastest first, and choose the target of a single-core run.
// fsroot.Host reads the running machine instead.
func Example() {
	topo, err := topology.Read(fsroot.Root("testdata/machines/phone-1-4-4"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range topo.Groups {
		fmt.Printf("group %d: CPUs %v, capacity %d, %.0f MHz\n", g.Rank, g.CPUs, *g.Capacity, *g.MaxMHz)
	}
	target, err := topo.Select("prime")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("target:", target.ExactCPU)
	fmt.Println("why:", target.Why)
	// Output:
	// group 0: CPUs 8, capacity 1024, 3250 MHz
	// group 1: CPUs 4-7, capacity 850, 2850 MHz
	// group 2: CPUs 0-3, capacity 300, 2000 MHz
	// target: 8
	// why: CPU 8 is the first hardware thread of its only core in the fastest group (CPUs 8, performance, capacity 1024, 3250 MHz).
}
