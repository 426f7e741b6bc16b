package topology

import (
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// CoreSiblings returns cpus with every hardware thread of their physical
// cores added: what an observer must keep off so that it takes nothing
// from the measured work, since SMT siblings share the core's execution
// units and caches. It reads only each CPU's core_cpus_list (or, on
// kernels before 5.7, thread_siblings_list), so a loop about to place its
// thread can afford it. A CPU without these files is a core of its own.
func CoreSiblings(root fsroot.Root, cpus cpuset.Set) (cpuset.Set, error) {
	f := &reader{Root: root}
	out := cpus
	for _, id := range cpus.CPUs() {
		dir := fmt.Sprintf("%s/cpu%d/topology", cpuDir, id)
		sib, ok, err := f.readListOrMask(dir+"/core_cpus_list", dir+"/core_cpus")
		if err == nil && !ok {
			sib, ok, err = f.readListOrMask(dir+"/thread_siblings_list", dir+"/thread_siblings")
		}
		if err != nil {
			return cpus, fmt.Errorf("reading the SMT siblings of CPU %d: %w", id, err)
		}
		if ok {
			out = out.Union(sib)
		}
	}
	return out, nil
}

// WholeCores is CoreSiblings from what Read found.
func (t *Topology) WholeCores(cpus cpuset.Set) cpuset.Set {
	out := cpus
	for _, id := range cpus.CPUs() {
		if c := t.CPU(id); c != nil {
			out = out.Union(c.Siblings)
		}
	}
	return out
}
