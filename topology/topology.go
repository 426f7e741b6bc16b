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
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

// Topology is what Read found: the machine's CPUs and their performance
// groups, as run.json records them (evidence.Topology), with the ways to
// choose a target among them.
type Topology struct {
	evidence.Topology
}

// Kinds of CPU. Intel hybrid parts name their cores through the cpu_core and
// cpu_atom PMUs; elsewhere the kind is inferred from capacity classes on a
// heterogeneous machine, and KindBalanced names the classes in between.
const (
	KindPerformance = "performance"
	KindBalanced    = "balanced"
	KindEfficiency  = "efficiency"
)

// ErrNotSysfs is returned by Read when the root has no CPU directory.
var ErrNotSysfs = errors.New("not a sysfs tree")

// Read reads the topology under root (fsroot.Host, "/", for the running
// machine; a folder that holds a dump of another machine's sys/ and proc/).
func Read(root fsroot.Root) (*Topology, error) { return read(root, true) }

// ReadForSelection reads only what choosing a target needs: no caches or
// model names. It is for paths that start work and must
// start quickly, such as corepin exec.
func ReadForSelection(root fsroot.Root) (*Topology, error) { return read(root, false) }

func read(root fsroot.Root, full bool) (*Topology, error) {
	if root == "" {
		root = fsroot.Host
	}
	fsys := root
	if st, err := os.Stat(fsys.Path(cpuDir)); err != nil || !st.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading topology under %s: %w: %s is missing", root, ErrNotSysfs, fsys.Path(cpuDir))
		}
		return nil, fmt.Errorf("reading topology under %s: %w", root, err)
	}
	r := &reader{Root: fsys, full: full}
	t := &Topology{Topology: evidence.Topology{Root: string(root)}}
	if err := t.readGlobal(r); err != nil {
		return nil, fmt.Errorf("reading topology under %s: %w", root, err)
	}
	if err := t.readCPUs(r); err != nil {
		return nil, fmt.Errorf("reading topology under %s: %w", root, err)
	}
	t.assignIDs(r.clusters)
	t.deriveCapacity()
	t.group()
	return t, nil
}

// GroupOf returns the group that holds cpu, or nil for an offline CPU.
func (t *Topology) GroupOf(cpu int) *evidence.Group {
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
