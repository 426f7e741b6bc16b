package cpuset_test

import (
	"fmt"

	"corepin.dev/corepin/cpuset"
)

// A CPU list in the kernel's list format, as /sys/devices/system/cpu/online
// and Cpus_allowed_list write it, read, combined with another and written
// back, in both of the kernel's formats.
func Example() {
	online, err := cpuset.Parse("0-3,8-11")
	if err != nil {
		fmt.Println(err)
		return
	}
	big := cpuset.Range(8, 15)
	both := online.Intersect(big)
	fmt.Println(both, both.Len(), both.CPUs())
	fmt.Println(online.Difference(big), online.Union(cpuset.Of(5)))
	fmt.Println(both.Mask())
	// Output:
	// 8-11 4 [8 9 10 11]
	// 0-3 0-3,5,8-11
	// f00
}

// The hex masks of thread_siblings and the node cpumap files: 32-bit
// words, most significant first.
func ExampleParseMask() {
	siblings, err := cpuset.ParseMask("00000000,00000101")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(siblings, siblings.First(), siblings.Contains(8))
	// Output: 0,8 0 true
}

// A list that is not one names what is wrong with it.
func ExampleParse_error() {
	_, err := cpuset.Parse("0-3,7-5")
	fmt.Println(err)
	// Output: invalid CPU list "0-3,7-5": reversed range 7-5
}
