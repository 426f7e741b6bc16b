package launch

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"corepin.dev/corepin/watch"
)

// SchedulingSummary is where and how the session's thread read back:
// "CPU 1 (exact, mask 1), other nice -20 (ladder geekbench step 2)".
func (rep *Report) SchedulingSummary() string {
	rb := rep.Readback
	var b strings.Builder
	fmt.Fprintf(&b, "CPU %d (%s, mask %s), %s", rb.CPU, rep.Target.Mode, rb.CPUs, rb.PolicyText())
	if rep.Ladder.AcceptedStep > 0 {
		fmt.Fprintf(&b, " (ladder %s step %d)", rep.Ladder.Name, rep.Ladder.AcceptedStep)
	} else if len(rep.Ladder.Steps) > 0 {
		fmt.Fprintf(&b, " (no step of ladder %s held)", rep.Ladder.Name)
	}
	return b.String()
}

// Summary is the run in one line: where the command ran, its share on
// target, its times and how it ended.
func (rep *Report) Summary() string {
	var b strings.Builder
	// Without a watcher, where the command started is all that is known.
	// Without a watcher (or with only the one reading at the end), what
	// corepin set is all that is known: the command may have changed its
	// own threads since, and the summary does not say it held.
	if rep.Watch == nil || rep.Watch.PeriodMs == 0 {
		fmt.Fprintf(&b, "%s started (not watched) with %s set", filepath.Base(rep.Command[0]), rep.SchedulingSummary())
	} else {
		fmt.Fprintf(&b, "%s ran on %s", filepath.Base(rep.Command[0]), rep.SchedulingSummary())
	}
	if wr := rep.Watch; wr != nil && wr.OnTargetRatio != nil {
		fmt.Fprintf(&b, "; on target %.1f%% of %d running samples, %d migrations, %d re-assertions", 100**wr.OnTargetRatio, runningSamples(wr.Threads), wr.Migrations, wr.Reasserts)
	}
	if why := rep.NoLongerHeld(); why != "" {
		b.WriteString("; " + why)
	}
	c := rep.Child
	fmt.Fprintf(&b, "; %.3fs wall, %.3fs user, %.3fs sys", c.WallS, c.UserS, c.SysS)
	if cov := rep.Coverage; cov != nil && cov.TreeSource == "cgroup" {
		fmt.Fprintf(&b, " (the whole tree %.3fs CPU)", cov.TreeCPUS)
	}
	if c := rep.Coverage; c != nil && c.Residency != nil && *c.Residency < 0.99 && rep.Tree != nil && len(rep.Tree.PerCPUSeconds) > 0 {
		// The work went elsewhere (its own affinity under --observe, or
		// something that escaped): say where its time went.
		fmt.Fprintf(&b, "; %.0f%% of the tree's CPU time on the target (%s)", 100**c.Residency, perCPU(rep.Tree.PerCPUSeconds))
	}
	if t := rep.Tree; t != nil && t.PriorityScope != "" {
		fmt.Fprintf(&b, "; priority acts through %s", t.PriorityScope)
	}
	if sh := rep.Sharing; sh != nil && sh.Others != nil {
		fmt.Fprintf(&b, "; others on the target %.1f%%", 100*sh.Others.Share)
	}
	if t := rep.Tree; t != nil && t.Ended > 0 {
		fmt.Fprintf(&b, "; ended %d process(es) the command left running", t.Ended)
	}
	if c.TimedOut {
		b.WriteString("; timed out")
	}
	if !rep.Restore.OK && rep.Restore.Done {
		b.WriteString("; corepin's thread that started it could not be put back, so it was ended")
	}
	if wr := rep.Watch; wr != nil {
		for _, warn := range wr.KeepUp.Warnings() {
			b.WriteString("\nwarning: " + warn)
		}
	}
	return b.String()
}

func runningSamples(threads []watch.ThreadStat) int {
	n := 0
	for _, t := range threads {
		n += t.Running
	}
	return n
}

// perCPU lists a per-CPU account: "CPU 0 0.241s, CPU 1 0.002s".
func perCPU(secs map[int]float64) string {
	cpus := slices.Sorted(maps.Keys(secs))
	parts := make([]string, len(cpus))
	for i, cpu := range cpus {
		parts[i] = fmt.Sprintf("CPU %d %.3fs", cpu, secs[cpu])
	}
	return strings.Join(parts, ", ")
}
