// Package tree holds one run's whole process tree: the command in a
// process group of its own, corepin the subreaper of its orphans, and,
// where the kernel and this user allow it, cgroups made for the run
// through the one cgroup layer (internal/cgroupfs) that confine it to
// the target, account its CPU time per CPU, weigh its nice value against
// other sessions, and end it without a race against fork. It finds every
// live process of the run, passes signals on, ends them all, reaps the
// orphans, reads the target around the run for the judge, and sweeps what
// a corepin that was killed left behind.
package tree

import "corepin.dev/corepin/cpuset"

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

// Guard is told of what a run makes that would outlive this process, as
// it makes it (see launch.Guard, its public face, and
// cmd/corepin/internal/guard, the guard process corepin's command hands it).
type Guard interface {
	Start(avoid cpuset.Set)
	Ready()
	Cgroup(version int, name string, dirs map[string]string)
	Group(pgid int, start uint64)
	Ungroup(pgid int)
}

// noGuard is the guard of a run that has none.
type noGuard struct{}

func (noGuard) Start(cpuset.Set)                      {}
func (noGuard) Ready()                                {}
func (noGuard) Cgroup(int, string, map[string]string) {}
func (noGuard) Group(int, uint64)                     {}
func (noGuard) Ungroup(int)                           {}
