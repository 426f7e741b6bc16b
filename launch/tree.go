package launch

import "corepin.dev/corepin/results/evidence"

// How the run's process tree was held together, as the report names it.
const (
	// MechanismCgroupV2 and MechanismCgroupV1: a cgroup made for the run
	// held every descendant, confined them to the target, accounted their
	// CPU time and ended them.
	MechanismCgroupV2 = "cgroup-v2"
	MechanismCgroupV1 = "cgroup-v1"
	// MechanismProcessGroup: the command's own process group, with corepin
	// the subreaper of every orphan; a descendant that leaves the group
	// is still followed and ended while corepin saw it.
	MechanismProcessGroup = "process-group"
)

// TreeReport says how the command's whole process tree was contained and
// ended.
type TreeReport = evidence.TreeReport
