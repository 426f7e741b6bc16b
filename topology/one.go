package topology

import (
	"fmt"
	"strconv"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

// SelectOne chooses one given CPU as the target with the same checks as
// Select (it must exist, be online and be allowed to this process), but
// reads only the machine's CPU lists, not each CPU's topology: for paths
// that start work on a CPU named by number and must start quickly, such as
// corepin exec --cpu N. The target's Why and Group, which need the groups,
// say only that the CPU was asked for. A CPU outside the usable ones takes
// the full reading, so that the refusal (or the widening of the inherited
// mask within the cpuset) is SelectCPUs' own.
func SelectOne(root fsroot.Root, cpu int) (Target, error) {
	if root == "" {
		root = fsroot.Host
	}
	t, err := readLists(root)
	if err != nil {
		return Target{}, fmt.Errorf("reading topology under %s: %w", root, err)
	}
	spec := strconv.Itoa(cpu)
	if cpu < 0 || cpu > cpuset.MaxCPU {
		return Target{}, &SelectError{Spec: spec, CPU: cpu,
			Reason: fmt.Sprintf("does not exist (this machine has CPUs %s, %s)", t.Present, fsroot.Root(t.Root).Path(cpuDir, "present"))}
	}
	if !t.Usable().Contains(cpu) {
		// A refusal, or a CPU the mask may widen to within the cpuset:
		// rare, and worth the whole reading, whose reasons name the limit
		// and its file.
		full, err := ReadForSelection(root)
		if err != nil {
			return Target{}, err
		}
		return full.SelectCPUs(cpuset.Of(cpu))
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
func readLists(fsys fsroot.Root) (*Topology, error) {
	t := &Topology{Topology: evidence.Topology{Root: fsys.String()}}
	r := &reader{Root: fsys}
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
