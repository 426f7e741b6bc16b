package evidence

import "corepin.dev/corepin/cpuset"

// Topology is what topology.Read found: the machine's CPUs and their
// performance groups.
type Topology struct {
	Root     string     `json:"root"`
	Model    string     `json:"model,omitempty"` // CPU model name from /proc/cpuinfo
	Possible cpuset.Set `json:"possible"`
	Present  cpuset.Set `json:"present"`
	Online   cpuset.Set `json:"online"`
	Isolated cpuset.Set `json:"isolated"`  // isolcpus=
	NohzFull cpuset.Set `json:"nohz_full"` // nohz_full=
	// Allowed is the calling process's affinity (Cpus_allowed_list of
	// /proc/self/status); it is read only when Root is "/".
	Allowed *cpuset.Set `json:"allowed,omitempty"`
	// Cpuset is the effective CPU list of this process's cpuset, read from
	// CpusetFile; nil when it could not be read. It, not Allowed, is what
	// the kernel holds a thread to: a thread may widen its own mask to any
	// CPU of its cpuset (an isolcpus CPU that no inherited mask holds).
	Cpuset     *cpuset.Set `json:"cpuset,omitempty"`
	CpusetFile string      `json:"cpuset_file,omitempty"`
	CPUs       []CPU       `json:"cpus"`
	Groups     []Group     `json:"groups"`
	// Lost are the capacity classes whose CPUs are all offline, fastest
	// first (a phone's big cluster taken offline); they are no group.
	Lost []Group `json:"lost_groups,omitempty"`
	// Heterogeneous is true when the fastest and slowest groups differ in
	// capacity by 1.5× or more, the threshold sched_ext's topology code uses
	// to ignore binning noise.
	Heterogeneous bool `json:"heterogeneous"`
}

// CPU is one logical CPU (one hardware thread).
type CPU struct {
	ID     int  `json:"cpu"`
	Online bool `json:"online"`
	// Package, Die and CoreID are the kernel's raw ids; -1 reads as unknown.
	Package *int `json:"package"`
	Die     *int `json:"die,omitempty"`
	CoreID  *int `json:"core_id,omitempty"`
	// Core and Cluster are ids unique across the machine, numbered in order
	// of their first CPU: two CPUs share Core exactly when they are SMT
	// siblings. The kernel's core_id cannot serve: it is 0 for every CPU on
	// sparc64 and restarts in every cluster on ARM.
	Core     *int       `json:"core"`
	Cluster  *int       `json:"cluster"`
	Siblings cpuset.Set `json:"siblings"` // hardware threads of the same core
	MaxMHz   *float64   `json:"max_mhz"`
	MinMHz   *float64   `json:"min_mhz"`
	// Capacity is cpu_capacity (0-1024) where the kernel exports it;
	// otherwise it is derived from the maximum frequency (fastest = 1024)
	// and CapacityDerived says so.
	Capacity        *int        `json:"capacity"`
	CapacityDerived bool        `json:"capacity_derived,omitempty"`
	Kind            string      `json:"kind,omitempty"`        // performance, efficiency, or a middle class; see KindSource
	KindSource      string      `json:"kind_source,omitempty"` // "pmu" (cpu_core/cpu_atom) or "capacity"
	HighestPerf     *int        `json:"highest_perf,omitempty"`
	L2              *cpuset.Set `json:"l2_shared,omitempty"` // CPUs sharing this CPU's L2
	L3              *cpuset.Set `json:"l3_shared,omitempty"` // CPUs sharing this CPU's L3
	Node            *int        `json:"node"`
	Isolated        bool        `json:"isolated,omitempty"`
	NohzFull        bool        `json:"nohz_full,omitempty"`
	Model           string      `json:"model,omitempty"`
}

// Group is a performance class of online CPUs; rank 0 is the fastest.
type Group struct {
	Rank            int        `json:"rank"`
	CPUs            cpuset.Set `json:"cpus"`
	Cores           int        `json:"cores"`
	MaxMHz          *float64   `json:"max_mhz"`
	Capacity        *int       `json:"capacity"`
	CapacityDerived bool       `json:"capacity_derived,omitempty"`
	Kind            string     `json:"kind,omitempty"`
}

// CPU returns the CPU with the given id, or nil.
func (t *Topology) CPU(id int) *CPU {
	for i := range t.CPUs {
		if t.CPUs[i].ID == id {
			return &t.CPUs[i]
		}
	}
	return nil
}
