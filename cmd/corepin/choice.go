package main

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/topology"
)

// A targetChoice is where a person asks work to run, as corepin's command line
// says it: a named target (prime, big, little or group:K), or one CPU or a
// list of CPUs by number, which override it. Its errors name the flags
// (--cpu, --cpus).
type targetChoice struct {
	Target    string
	CPU       *int    // --cpu; nil when not given
	CPUs      *string // --cpus; nil when not given
	CrossNode bool    // a soft target may span NUMA nodes
}

// A wrongChoice is a choice this machine cannot give: a wrong command
// line, not a failure to read the machine.
type wrongChoice struct{ Err error }

func (e *wrongChoice) Error() string { return e.Err.Error() }
func (e *wrongChoice) Unwrap() error { return e.Err }

func wrong(format string, a ...any) error { return &wrongChoice{fmt.Errorf(format, a...)} }

// Set is the CPUs the choice names by number, empty when it names none.
func (c targetChoice) Set() (cpuset.Set, error) {
	switch {
	case c.CPU != nil && c.CPUs != nil:
		return cpuset.Set{}, wrong("--cpu and --cpus cannot be combined")
	case c.CPU != nil && *c.CPU > cpuset.MaxCPU:
		return cpuset.Set{}, wrong("--cpu %d: no machine has a CPU with that number (the highest corepin takes is %d)", *c.CPU, cpuset.MaxCPU)
	case c.CPU != nil && *c.CPU < 0:
		return cpuset.Set{}, wrong("--cpu %d: a CPU number is 0 or more", *c.CPU)
	case c.CPU != nil:
		return cpuset.Of(*c.CPU), nil
	case c.CPUs != nil:
		s, err := cpuset.Parse(*c.CPUs)
		if err != nil {
			return cpuset.Set{}, wrong("--cpus: %w", err)
		}
		if s.IsEmpty() {
			return cpuset.Set{}, wrong("--cpus: the list is empty")
		}
		return s, nil
	}
	return cpuset.Set{}, nil
}

// Resolve reads the topology under root and selects the choice's target.
func (c targetChoice) Resolve(root fsroot.Root) (*topology.Topology, topology.Target, error) {
	return c.resolveWith(topology.Read, root)
}

// ResolveQuick selects the choice's target for work that starts at once,
// reading only what selection needs: for one CPU, only the machine's CPU
// lists (topology.SelectOne).
func (c targetChoice) ResolveQuick(root fsroot.Root) (topology.Target, error) {
	if c.CPU != nil && c.CPUs == nil && *c.CPU >= 0 {
		target, err := topology.SelectOne(root, *c.CPU)
		if se := (*topology.SelectError)(nil); errors.As(err, &se) {
			return target, &wrongChoice{err}
		}
		return target, err
	}
	_, target, err := c.resolveWith(topology.ReadForSelection, root)
	return target, err
}

func (c targetChoice) resolveWith(read func(fsroot.Root) (*topology.Topology, error), root fsroot.Root) (*topology.Topology, topology.Target, error) {
	cpus, err := c.Set()
	if err != nil {
		return nil, topology.Target{}, err
	}
	topo, err := read(root)
	if err != nil {
		return nil, topology.Target{}, err
	}
	var target topology.Target
	if cpus.IsEmpty() {
		target, err = topo.SelectWith(c.Target, topology.SelectOptions{CrossNode: c.CrossNode})
	} else {
		target, err = topo.SelectCPUs(cpus)
	}
	if err != nil {
		return nil, topology.Target{}, &wrongChoice{err} // a CPU that cannot be used
	}
	return topo, target, nil
}

// Measured is the choice as a set of CPUs to measure on: the CPUs it
// names by number, else the exact CPU of its target under root.
func (c targetChoice) Measured(root fsroot.Root) (cpuset.Set, error) {
	cpus, err := c.Set()
	if err != nil || !cpus.IsEmpty() {
		return cpus, err
	}
	_, target, err := c.Resolve(root)
	if err != nil {
		return cpuset.Set{}, err
	}
	return cpuset.Of(target.ExactCPU), nil
}

// Unmet says how a target asked for by name is not what the machine
// under root can give, naming what was chosen instead: --target little
// where no core is slower than the others, or --cpus with several CPUs
// when the work runs on one (exact). "" when the choice is met.
func (c targetChoice) Unmet(root fsroot.Root, target topology.Target, exact bool) string {
	if c.CPU == nil && c.CPUs == nil && c.Target == "little" && target.Group != nil && *target.Group == 0 && allOnline(root) {
		return fmt.Sprintf("--target little: no core of this machine is slower than the others; CPU %d of the fastest group was chosen (--accept any runs there)", target.ExactCPU)
	}
	if c.CPUs != nil && exact {
		if set, err := cpuset.Parse(*c.CPUs); err == nil && set.Len() > 1 {
			return fmt.Sprintf("--cpus %s names %d CPUs but exact mode runs on one; CPU %d was chosen (--mode soft uses them all, --accept any runs on CPU %d)", set, set.Len(), target.ExactCPU, target.ExactCPU)
		}
	}
	return ""
}

// allOnline says whether every present CPU is online. A machine whose
// fastest cores went offline runs --target little on what is left: those
// cores are still slower than the machine's own (the topology says so).
func allOnline(root fsroot.Root) bool {
	t, err := topology.ReadForSelection(root)
	return err != nil || t.Online.Equal(t.Present)
}
