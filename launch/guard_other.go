//go:build !linux

package launch

import (
	"fmt"
	"os"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// EnableGuard does nothing outside Linux, where corepin starts no run
// cgroups to guard.
func EnableGuard() {}

// DismissGuard does nothing outside Linux.
func DismissGuard() error { return nil }

// GuardTune does nothing outside Linux.
func GuardTune(cpuset.Set, fsroot.Root, string) {}

// GuardResults does nothing outside Linux.
func GuardResults(cpuset.Set, string) {}

// SweepStale finds nothing outside Linux.
func SweepStale(fsroot.Root, bool) []Stray { return nil }

func guardMain([]string) int {
	fmt.Fprintf(os.Stderr, "corepin %s: unsupported on this system\n", GuardArg)
	return 1
}
