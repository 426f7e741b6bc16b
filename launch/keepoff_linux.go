package launch

import (
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

// keepOff moves every thread of this process off the target CPUs and
// their SMT siblings for the run (off the target alone when no other core
// is allowed) and returns a function that puts each back. Threads created in the
// meantime inherit the reduced mask from their creator (the Go runtime
// starts threads from a locked goroutine's thread through a template
// thread, which is moved too); they get the process's original mask on the
// way back. The listing is repeated until it finds no thread it has not
// moved, so that a thread started by one not yet moved is not missed.
func keepOff(root fsroot.Root, target cpuset.Set, pr *ParentReport) func() error {
	orig, err := sched.GetAffinity(0)
	if err != nil {
		pr.Note = "could not read corepin's own mask: " + err.Error()
		return func() error { return nil }
	}
	core, _ := topology.CoreSiblings(root.String(), target)
	off, onCore, err := sched.OffCPUs(orig, target, core)
	if err != nil {
		pr.Note = "corepin's threads may run only on the target CPUs " + orig.String() + "; they stay there"
		return func() error { return nil }
	}
	if onCore {
		pr.Note = fmt.Sprintf("corepin's threads run on CPUs %s, SMT siblings of the target %s: no other core is allowed to them", off, target)
	}
	prev := map[int]cpuset.Set{}
	tried := map[int]bool{}
	for moved := true; moved; {
		moved = false
		for _, tid := range sched.OwnThreads(root) {
			if tried[tid] {
				continue
			}
			tried[tid], moved = true, true
			if m, err := sched.GetAffinity(tid); err == nil && sched.SetAffinity(tid, off) == nil {
				prev[tid] = m
			}
		}
	}
	pr.CPUs = off
	return func() error {
		var first error
		for _, tid := range sched.OwnThreads(root) {
			m, ok := prev[tid]
			if !ok {
				m = orig
			}
			if err := sched.SetAffinity(tid, m); err != nil && first == nil && sched.ThreadAlive(tid) {
				first = err
			}
		}
		return first
	}
}
