package launch

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

// TreeReport says how the command's whole process tree was contained and
// ended.
type TreeReport struct {
	Mechanism string `json:"mechanism"`
	// Cgroup lists the run's cgroup directories (removed afterwards);
	// CgroupCPUs is the CPU list read back from the cgroup.
	Cgroup     []string   `json:"cgroup,omitempty"`
	CgroupCPUs cpuset.Set `json:"cgroup_cpus,omitempty"`
	// NoCgroup says why the run had no cgroup.
	NoCgroup string `json:"no_cgroup,omitempty"`
	// CgroupRemoved: every directory of the run's cgroup is gone.
	CgroupRemoved bool `json:"cgroup_removed"`
	PGID          int  `json:"pgid"`
	// Subreaper: orphans of the tree were reparented to corepin, which
	// followed and reaped them.
	Subreaper bool `json:"subreaper"`
	// Ended counts the processes of the run that were still running when
	// corepin ended the tree (at the timeout, at Ctrl-C, or after the
	// command itself exited); Left those still running afterwards, 0
	// unless something escaped every mechanism.
	Ended int `json:"ended"`
	Left  int `json:"left"`
	// CPUSeconds is the cgroup's exact account of the whole tree's CPU
	// time, the dead processes' included; null without a cgroup account.
	// PerCPUSeconds splits it by CPU where the kernel does (cgroup v1
	// cpuacct).
	CPUSeconds    *float64        `json:"cpu_s"`
	PerCPUSeconds map[int]float64 `json:"per_cpu_s,omitempty"`
	// LeftCgroup counts the run's processes that were found outside its
	// cgroup (a program can move itself); LeftCgroupCPUS is the CPU
	// time they used between the first and the last time they were seen
	// outside, from /proc, which the cgroup's account misses and the
	// tree's CPU time includes; LeftCgroupOnTargetS the
	// part of it of those last seen on the target.
	LeftCgroup          int     `json:"left_cgroup,omitempty"`
	LeftCgroupCPUS      float64 `json:"left_cgroup_cpu_s,omitempty"`
	LeftCgroupOnTargetS float64 `json:"left_cgroup_on_target_s,omitempty"`
	// PriorityScope says what makes the priority the command's thread
	// read back act against the rest of the machine: "cpu cgroup weight
	// N" (the tree ran in a cpu cgroup of kernel weight N, read back),
	// ScopeAutogroup, ScopeNoAutogroup or ScopeRealtime; empty where
	// nothing was raised or lowered. PriorityNote says why a nice value
	// that acts only within its session got no cpu cgroup.
	PriorityScope string   `json:"priority_scope,omitempty"`
	PriorityNote  string   `json:"priority_note,omitempty"`
	Errors        []string `json:"errors,omitempty"`
}
