package launch

import "corepin.dev/corepin/cpuset"

// Sharing says whether the target CPUs were the work's own: how much of
// the CPUs the tree used, and how long its threads waited, runnable, for a
// CPU while something else ran there (the kernel's schedstat account of
// every followed thread).
type Sharing struct {
	// UsableCPUs is the number of target CPUs the tree could use.
	UsableCPUs int `json:"usable_cpus"`
	// CPUPerWall is the followed threads' time on a CPU per second of the
	// command's wall time; at most UsableCPUs for work that had the CPUs
	// to itself.
	CPUPerWall *float64 `json:"cpu_per_wall"`
	// WaitS is the followed threads' time waiting on a run queue;
	// WaitShare that time as a share of the time they wanted a CPU (on
	// one or waiting for one): "the work waited N% of its time".
	// WaitOfWall is WaitS per second of wall time.
	WaitS      *float64 `json:"wait_s"`
	WaitShare  *float64 `json:"wait_share"`
	WaitOfWall *float64 `json:"wait_of_wall"`
	// BusyThreads counts the threads that wanted a CPU (ran or waited
	// for one) for at least half the wall time; more of them than
	// UsableCPUs took turns on the target.
	BusyThreads int `json:"busy_threads"`
	// Others is the target's time that went to anything but the work:
	// what a shared target is judged by. Null where the target's busy
	// time could not be read.
	Others *Others `json:"others,omitempty"`
	// Preemptors name the processes outside the work that took the most
	// time on the target, from the scheduler's switch events where corepin
	// may trace them (BPF); null where it did not, with PreemptorsError
	// saying why when it tried.
	Preemptors      []Preemptor `json:"preemptors,omitempty"`
	PreemptorsError string      `json:"preemptors_error,omitempty"`
}

// Coverage says how much of the tree's CPU time the residency figure
// accounts for.
type Coverage struct {
	// TreeCPUS is the whole tree's CPU time: the cgroup's exact account
	// (TreeSource "cgroup") or the command's rusage, its own and its
	// waited-for descendants' (TreeSource "rusage").
	TreeCPUS   float64 `json:"tree_cpu_s"`
	TreeSource string  `json:"tree_source"`
	// SeenCPUS is the CPU time of the threads the watcher saw;
	// SampledCoverage is SeenCPUS over TreeCPUS, at most 1: what the
	// sampled residency covers. Threads that lived between two samples
	// are never seen.
	SeenCPUS        float64  `json:"seen_cpu_s"`
	SampledCoverage *float64 `json:"sampled_coverage"`
	// Residency is the share of the tree's CPU time spent on the target,
	// from the exact per-CPU account where the kernel keeps one
	// (ResidencySource "cpuacct", covering every process: Coverage 1),
	// else from the samples ("sampled", Coverage = SampledCoverage).
	// SampledResidency is the sampled figure, kept beside the exact one.
	Residency        *float64 `json:"residency"`
	ResidencySource  string   `json:"residency_source"`
	Coverage         *float64 `json:"coverage"`
	SampledResidency *float64 `json:"sampled_residency"`
}

// account works out the run's sharing and coverage from the watcher's
// result, the tree's account and the command's wall time.
func (r *Report) account(target cpuset.Set) {
	r.Sharing = &Sharing{UsableCPUs: target.Len()}
	w, wall := r.Watch, r.Child.WallS
	var seen float64
	if w != nil {
		for _, t := range w.Threads {
			cpu := t.CPUSeconds
			if t.RunS != nil {
				cpu = *t.RunS
			}
			seen += cpu
			// A thread that wanted a CPU (ran or waited for one) for at
			// least half the wall time was busy: more of them than CPUs
			// take turns, whatever share each got.
			wanted := cpu
			if t.WaitS != nil {
				wanted += *t.WaitS
			}
			if wall > 0 && wanted >= wall/2 {
				r.Sharing.BusyThreads++
			}
		}
		if w.RunS != nil && w.WaitS != nil && wall > 0 {
			perWall, wait, ofWall := *w.RunS/wall, *w.WaitS, *w.WaitS/wall
			r.Sharing.CPUPerWall, r.Sharing.WaitS, r.Sharing.WaitOfWall = &perWall, &wait, &ofWall
			if wanted := *w.RunS + *w.WaitS; wanted > 0 {
				share := wait / wanted
				r.Sharing.WaitShare = &share
			}
		}
	}
	c := &Coverage{SeenCPUS: seen, TreeCPUS: r.Child.UserS + r.Child.SysS, TreeSource: "rusage"}
	tree := r.Tree
	if tree == nil {
		tree = &TreeReport{}
	}
	if tree.CPUSeconds != nil {
		c.TreeCPUS, c.TreeSource = *tree.CPUSeconds+tree.LeftCgroupCPUS, "cgroup"
		if tree.LeftCgroup > 0 {
			c.TreeSource = "cgroup+proc" // what left the cgroup, from /proc
		}
	}
	if c.TreeCPUS > 0 && w != nil {
		sc := min(1, seen/c.TreeCPUS)
		c.SampledCoverage = &sc
	}
	if w != nil && w.OnTargetRatio != nil {
		sr := *w.OnTargetRatio
		c.SampledResidency = &sr
	}
	var total, onTarget float64
	for cpu, s := range tree.PerCPUSeconds {
		total += s
		if target.Contains(cpu) {
			onTarget += s
		}
	}
	switch {
	case total > 0 && tree.LeftCgroup > 0:
		// What left the cgroup is counted where it was last seen: the
		// exact account covers only the rest.
		res, cov := (onTarget+tree.LeftCgroupOnTargetS)/(total+tree.LeftCgroupCPUS), total/(total+tree.LeftCgroupCPUS)
		c.Residency, c.ResidencySource, c.Coverage = &res, "cpuacct+sampled", &cov
	case total > 0:
		res, one := onTarget/total, 1.0
		c.Residency, c.ResidencySource, c.Coverage = &res, "cpuacct", &one
	case w != nil:
		// The samples' residency (null when no sample saw the work run)
		// and their coverage, which says how little that may be.
		c.Residency, c.ResidencySource, c.Coverage = c.SampledResidency, "sampled", c.SampledCoverage
	}
	r.Coverage = c
}
