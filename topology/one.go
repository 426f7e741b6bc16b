package topology

import (
	"fmt"
	"strconv"

	"corepin.dev/corepin/cpuset"
)

// SelectOne chooses one given CPU as the target with the same checks as
// Select (it must exist, be online and be allowed to this process), but
// reads only the machine's CPU lists, not each CPU's topology: for paths
// that start work on a CPU named by number and must start quickly, such as
// corepin exec --cpu N. The target's Why and Group, which need the groups,
// say only that the CPU was asked for.
func SelectOne(root string, cpu int) (Target, error) {
	if root == "" {
		root = "/"
	}
	t, err := readLists(FS(root))
	if err != nil {
		return Target{}, fmt.Errorf("reading topology under %s: %w", root, err)
	}
	spec := strconv.Itoa(cpu)
	usable := t.Usable()
	switch {
	case usable.IsEmpty():
		return Target{}, &SelectError{Spec: spec, CPU: -1, Reason: "no online CPU is allowed to this process"}
	case !t.Present.Contains(cpu):
		return Target{}, &SelectError{Spec: spec, CPU: cpu,
			Reason: fmt.Sprintf("does not exist (this machine has CPUs %s)", t.Present)}
	case !t.Online.Contains(cpu):
		return Target{}, &SelectError{Spec: spec, CPU: cpu, Reason: "is offline"}
	case !usable.Contains(cpu):
		return Target{}, &SelectError{Spec: spec, CPU: cpu,
			Reason: fmt.Sprintf("is outside this process's allowed CPUs %s (taskset or cgroup cpuset)", usable)}
	}
	target := Target{Spec: spec, ExactCPU: cpu, SoftCPUs: cpuset.Of(cpu), Why: fmt.Sprintf("CPU %d was asked for", cpu)}
	if t.Isolated.Contains(cpu) {
		target.Why += "; it is isolated from the scheduler's load balancing (isolcpus)"
	}
	return target, nil
}

// readLists reads only the CPU lists selection needs: present, online and
// isolated, and on the live system the process's allowed CPUs (the main
// thread's mask, as Cpus_allowed_list of /proc/self/status shows it).
func readLists(fsys FS) (*Topology, error) {
	t := &Topology{Root: fsys.String()}
	r := &reader{FS: fsys}
	for _, l := range []struct {
		name string
		set  *cpuset.Set
	}{{"present", &t.Present}, {"online", &t.Online}, {"isolated", &t.Isolated}} {
		p := cpuDir + "/" + l.name
		text, ok, err := r.readString(p)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if *l.set, err = cpuset.Parse(text); err != nil {
			return nil, &FileError{Path: r.Path(p), Err: err}
		}
	}
	if fsys.IsHost() {
		allowed, err := processMask()
		if err != nil {
			return nil, err
		}
		t.Allowed = &allowed
	}
	return t, nil
}
