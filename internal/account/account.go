// Package account is the arithmetic of a run's account over its evidence:
// others' time on the target between two busy readings, the tree's window
// and its part on the target, the coverage of the residency, the
// preemptors, and the run in one line. Pure functions, read by launch as
// the run ends and by the judge.
package account

import (
	"fmt"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results/evidence"
)

// MinSampledPeriods is how many of the watcher's periods of CPU time a
// tree must use before its sampled coverage is judged. A thread's time
// before the sample that first sees it is never counted, and that first
// sample may come up to a period late (later still where the watcher is
// starved); below five periods of CPU time the coverage measures where
// the ticks fell, not what the samples missed: a command of a few
// milliseconds may end before the first.
const MinSampledPeriods = 5

// MinSampledCPU is the CPU time below which a tree's sampled coverage is
// too short to judge, for a watcher of period p.
func MinSampledCPU(p time.Duration) time.Duration { return MinSampledPeriods * p }

// Account works out a run's sharing and coverage from the watcher's
// result, the tree's account and the command's wall time, on target.
func Account(s *evidence.Scheduling, target cpuset.Set) {
	seen := accountSharing(s, target)
	tree := s.Tree
	if tree == nil {
		tree = &evidence.TreeReport{}
	}
	c := treeCoverage(tree, s.Child, s.Watch, seen)
	coverResidency(c, tree, target, s.Watch)
	s.Coverage = c
}

// accountSharing fills in Sharing from the followed threads' run and wait
// times, and returns the CPU time of the threads the watcher saw.
func accountSharing(s *evidence.Scheduling, target cpuset.Set) (seen float64) {
	s.Sharing = &evidence.Sharing{UsableCPUs: target.Len()}
	w, wall := s.Watch, s.Child.WallS
	if w == nil {
		return 0
	}
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
			s.Sharing.BusyThreads++
		}
	}
	if w.RunS != nil && w.WaitS != nil && wall > 0 {
		perWall, wait, ofWall := *w.RunS/wall, *w.WaitS, *w.WaitS/wall
		s.Sharing.CPUPerWall, s.Sharing.WaitS, s.Sharing.WaitOfWall = &perWall, &wait, &ofWall
		if wanted := *w.RunS + *w.WaitS; wanted > 0 {
			share := wait / wanted
			s.Sharing.WaitShare = &share
		}
	}
	return seen
}

// treeCoverage is the tree's CPU time, from the cgroup where it counted
// it, else from the command's rusage, and what part of it the watcher's
// samples saw.
func treeCoverage(tree *evidence.TreeReport, child evidence.ChildReport, w *evidence.Watch, seen float64) *evidence.Coverage {
	c := &evidence.Coverage{SeenCPUS: seen, TreeCPUS: child.UserS + child.SysS + tree.ReapedCPUS, TreeSource: "rusage"}
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
	return c
}

// coverResidency fills in c's share of the tree's CPU time on the target:
// exact from the per-CPU account where the kernel keeps one, with what
// left the cgroup counted where it was last seen; else the samples', with
// how little they may cover.
func coverResidency(c *evidence.Coverage, tree *evidence.TreeReport, target cpuset.Set, w *evidence.Watch) {
	var total, onTarget float64
	for cpu, s := range tree.PerCPUSeconds {
		total += s
		if target.Contains(cpu) {
			onTarget += s
		}
	}
	switch {
	case total > 0 && tree.LeftCgroup > 0:
		res, cov := (onTarget+tree.LeftCgroupOnTargetS)/(total+tree.LeftCgroupCPUS), total/(total+tree.LeftCgroupCPUS)
		c.Residency, c.ResidencySource, c.Coverage = &res, "cpuacct+sampled", &cov
	case total > 0:
		res, one := onTarget/total, 1.0
		c.Residency, c.ResidencySource, c.Coverage = &res, "cpuacct", &one
	case w != nil:
		// The samples' residency (null when no sample saw the work run)
		// and their coverage, which says how little that may be.
		c.Residency, c.ResidencySource, c.Coverage = c.SampledResidency, "sampled", c.SampledCoverage
		c.TooShort = sampledTooShort(c.TreeCPUS, w)
	}
}

// sampledTooShort says why a sampled coverage says nothing of the work, or ""
// when it may be judged (see Coverage.TooShort).
func sampledTooShort(treeCPUS float64, w *evidence.Watch) string {
	period := time.Duration(w.PeriodMs) * time.Millisecond
	switch floor := MinSampledCPU(period); {
	case period == 0:
		return "the watcher was off (a period of 0): it took no samples"
	case treeCPUS < floor.Seconds():
		return fmt.Sprintf("the tree used %.3fs of CPU time, under %d of the watcher's %v periods (%v)", treeCPUS, MinSampledPeriods, period, floor)
	case w.Samples < MinSampledPeriods:
		// A watcher that missed its ticks (an emulated machine's turns)
		// took too few samples to say what they cover.
		return fmt.Sprintf("the watcher took %d samples, under %d", w.Samples, MinSampledPeriods)
	}
	return ""
}
