// Package topology reads a machine's CPUs from /sys and /proc under a root
// directory, groups the online CPUs by performance class, fastest first, and
// chooses the CPU a single-core run should use.
//
// Everything that could not be read is unknown (a nil pointer, null in
// JSON), never zero: a machine without cpufreq has no maximum frequency, not
// a maximum of 0 MHz.
package topology

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"corepin.dev/corepin/cpuset"
)

// Topology is what Read found.
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

	clusterCPUs cpuset.Set // the CPUs of this CPU's cluster, before ids are given
}

// Kinds of CPU. Intel hybrid parts name their cores through the cpu_core and
// cpu_atom PMUs; elsewhere the kind is inferred from capacity classes on a
// heterogeneous machine, and KindBalanced names the classes in between.
const (
	KindPerformance = "performance"
	KindBalanced    = "balanced"
	KindEfficiency  = "efficiency"
)

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

// ErrNotSysfs is returned by Read when the root has no CPU directory.
var ErrNotSysfs = errors.New("not a sysfs tree")

// Read reads the topology under root ("/" for the running machine).
func Read(root string) (*Topology, error) { return read(root, true) }

// ReadForSelection reads only what choosing a target needs: no caches or
// model names. It is for paths that start work and must
// start quickly, such as corepin exec.
func ReadForSelection(root string) (*Topology, error) { return read(root, false) }

func read(root string, full bool) (*Topology, error) {
	if root == "" {
		root = "/"
	}
	fsys := FS(root) // corepin's one root type
	if st, err := os.Stat(fsys.Path(cpuDir)); err != nil || !st.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading topology under %s: %w: %s is missing", root, ErrNotSysfs, fsys.Path(cpuDir))
		}
		return nil, fmt.Errorf("reading topology under %s: %w", root, err)
	}
	r := &reader{FS: fsys, full: full}
	t := &Topology{Root: root}
	if err := t.readGlobal(r); err != nil {
		return nil, fmt.Errorf("reading topology under %s: %w", root, err)
	}
	if err := t.readCPUs(r); err != nil {
		return nil, fmt.Errorf("reading topology under %s: %w", root, err)
	}
	t.assignIDs()
	t.deriveCapacity()
	t.group()
	return t, nil
}

// CPU returns the CPU with the given number, or nil.
func (t *Topology) CPU(id int) *CPU {
	for i := range t.CPUs {
		if t.CPUs[i].ID == id {
			return &t.CPUs[i]
		}
	}
	return nil
}

// GroupOf returns the group that holds cpu, or nil for an offline CPU.
func (t *Topology) GroupOf(cpu int) *Group {
	for i := range t.Groups {
		if t.Groups[i].CPUs.Contains(cpu) {
			return &t.Groups[i]
		}
	}
	return nil
}

// Usable returns the online CPUs this process may run on: the online CPUs,
// cut down to the allowed mask where it is known.
func (t *Topology) Usable() cpuset.Set {
	u := t.Online
	if t.Allowed != nil {
		u = u.Intersect(*t.Allowed)
	}
	return u
}

// Node is a NUMA node and its online CPUs.
type Node struct {
	ID   int        `json:"node"`
	CPUs cpuset.Set `json:"cpus"`
}

// Nodes lists the NUMA nodes that hold online CPUs, in order; empty when
// the nodes were not read.
func (t *Topology) Nodes() []Node {
	var out []Node
	for _, c := range t.CPUs {
		if !c.Online || c.Node == nil {
			continue
		}
		i := slices.IndexFunc(out, func(n Node) bool { return n.ID == *c.Node })
		if i < 0 {
			out = append(out, Node{ID: *c.Node})
			i = len(out) - 1
		}
		out[i].CPUs = out[i].CPUs.Union(cpuset.Of(c.ID))
	}
	slices.SortFunc(out, func(a, b Node) int { return a.ID - b.ID })
	return out
}

// Sockets lists the physical packages of the online CPUs.
func (t *Topology) Sockets() []int {
	var out []int
	for _, c := range t.CPUs {
		if c.Online && c.Package != nil && !slices.Contains(out, *c.Package) {
			out = append(out, *c.Package)
		}
	}
	slices.Sort(out)
	return out
}

// NodeOf returns the NUMA node of cpu, or nil when it is not known.
func (t *Topology) NodeOf(cpu int) *int {
	if c := t.CPU(cpu); c != nil {
		return c.Node
	}
	return nil
}
