package launch

import (
	"corepin.dev/corepin/internal/tree"
)

// How the run's process tree was held together (TreeReport.Mechanism):
// in a cgroup made for the run, v2 or v1, or by the command's own process
// group with corepin the subreaper of every orphan.
const (
	MechanismCgroupV2     = tree.MechanismCgroupV2
	MechanismCgroupV1     = tree.MechanismCgroupV1
	MechanismProcessGroup = tree.MechanismProcessGroup
)
