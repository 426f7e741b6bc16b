//go:build !linux

package tree

import "corepin.dev/corepin/fsroot"

// CPUWeightPlan says no outside Linux: there are no cpu cgroups.
func CPUWeightPlan(fsroot.Root) (ok bool, how string) { return false, "not Linux" }

// WeighThread does nothing outside Linux.
func WeighThread(fsroot.Root) (scope, note string, back func() error) {
	return "", "not Linux", func() error { return nil }
}

// Containment is the process group outside Linux: there are no cgroups.
func Containment(fsroot.Root) (mechanism, evidence string) {
	return MechanismProcessGroup, "no cgroup: not Linux"
}
