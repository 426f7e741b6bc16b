package launch

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

// keepOff moves every thread of this process off the target CPUs and
// their SMT siblings for the run (off the target alone when no other core
// is allowed) and returns a function that puts each back. sched keeps the
// one record of the moves, so that runs overlapping in one process keep
// the threads off all their targets and the last to end puts back the
// masks the threads had before the first began.
func keepOff(root fsroot.Root, target cpuset.Set, pr *evidence.ParentReport) func() error {
	core, _ := topology.CoreSiblings(root, target)
	where, restore, err := sched.KeepProcessOff(root, target, core)
	if err != nil {
		pr.Note = "corepin's threads may run only on the target CPUs " + where.CPUs.String() + "; they stay there"
		if !where.CPUs.IsSubsetOf(target) { // another run in this process holds them off its target
			pr.Note = "corepin's threads stay on CPUs " + where.CPUs.String() + ", off the target of another run in this process: no allowed CPU is off both targets"
		}
		if !errors.Is(err, sched.ErrNoOtherCPU) {
			pr.Note = "could not move corepin's own threads off the target: " + err.Error()
		}
		return restore
	}
	if where.OnCore {
		pr.Note = fmt.Sprintf("corepin's threads run on CPUs %s, SMT siblings of the target %s: no other core is allowed to them", where.CPUs, target)
	}
	pr.CPUs = where.CPUs
	return restore
}
