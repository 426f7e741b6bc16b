package account

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"corepin.dev/corepin/results/evidence"
)

// SchedulingLine is where and how the session's thread read back:
// "CPU 1 (exact, mask 1), other nice -20 (ladder geekbench step 2)".
func SchedulingLine(rep *evidence.Scheduling) string {
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

// ReportLine is the run in one line: where the command ran, its share on
// target, its times and how it ended, then the watcher's warnings.
func ReportLine(rep *evidence.Scheduling, observe string) string {
	var b strings.Builder
	summarizePlace(&b, rep)
	summarizeResidency(&b, rep)
	if why := NoLongerHeld(rep); why != "" {
		b.WriteString("; " + why)
	}
	summarizeTimes(&b, rep)
	summarizeTree(&b, rep)
	summarizeEnd(&b, rep)
	summarizeConfined(&b, rep, observe)
	return b.String()
}

// NoLongerHeld says why the acceptance rule stopped holding during the
// run ("CPU 3 went offline at 1.2 s; the work ran elsewhere from then on
// (…)"), or "" when it held.
func NoLongerHeld(rep *evidence.Scheduling) string {
	if rep.Watch != nil && rep.Watch.TargetOffline != nil {
		return rep.Watch.TargetOffline.String()
	}
	return ""
}

// summarizePlace says where the command ran. Without a watcher (or with
// only the one reading at the end), what corepin set is all that is
// known: the command may have changed its own threads since, and the
// summary does not say it held.
func summarizePlace(b *strings.Builder, rep *evidence.Scheduling) {
	if rep.Watch == nil || rep.Watch.PeriodMs == 0 {
		fmt.Fprintf(b, "%s started (not watched) with %s set", filepath.Base(rep.Command[0]), SchedulingLine(rep))
		return
	}
	fmt.Fprintf(b, "%s ran on %s", filepath.Base(rep.Command[0]), SchedulingLine(rep))
}

// summarizeResidency says what the watcher's samples saw: the share on
// target, and when the samples are the residency, how much of the work
// they describe.
func summarizeResidency(b *strings.Builder, rep *evidence.Scheduling) {
	wr := rep.Watch
	if wr == nil || wr.OnTargetRatio == nil {
		return
	}
	fmt.Fprintf(b, "; on target %.1f%% of %d running samples", 100**wr.OnTargetRatio, runningSampleCount(wr.Threads))
	if c := rep.Coverage; c != nil && c.ResidencySource == "sampled" {
		switch {
		case c.TooShort != "":
			b.WriteString(" (the sampled residency: too short to judge what it covers)")
		case c.Coverage != nil:
			fmt.Fprintf(b, " (the sampled residency, covering %.0f%% of the tree's %.3fs CPU time from %s)", 100**c.Coverage, c.TreeCPUS, c.TreeSource)
		}
	}
	fmt.Fprintf(b, ", %d migrations, %d re-assertions", wr.Migrations, wr.Reasserts)
}

// summarizeTimes gives the command's times, the whole tree's CPU time
// where the cgroup counted it, and where that time went when the work
// left the target (its own affinity where the command observes, or
// something that escaped).
func summarizeTimes(b *strings.Builder, rep *evidence.Scheduling) {
	c, cov := rep.Child, rep.Coverage
	fmt.Fprintf(b, "; %.3fs wall, %.3fs user, %.3fs sys", c.WallS, c.UserS, c.SysS)
	if cov == nil {
		return
	}
	if cov.TreeSource == "cgroup" {
		fmt.Fprintf(b, " (the whole tree %.3fs CPU)", cov.TreeCPUS)
	}
	if cov.Residency != nil && *cov.Residency < 0.99 && rep.Tree != nil && len(rep.Tree.PerCPUSeconds) > 0 {
		fmt.Fprintf(b, "; %.0f%% of the tree's CPU time on the target (%s)", 100**cov.Residency, perCPULine(rep.Tree.PerCPUSeconds))
	}
}

// summarizeTree says how priority reached the tree and who else ran on
// the target.
func summarizeTree(b *strings.Builder, rep *evidence.Scheduling) {
	if t := rep.Tree; t != nil && t.PriorityScope != "" {
		fmt.Fprintf(b, "; priority acts through %s", t.PriorityScope)
	}
	if sh := rep.Sharing; sh != nil && sh.Others != nil {
		fmt.Fprintf(b, "; others on the target %.1f%%", 100*sh.Others.Share)
	}
}

// summarizeEnd says what corepin had to end: what the command left
// running, the command at its timeout, the thread it could not put back.
func summarizeEnd(b *strings.Builder, rep *evidence.Scheduling) {
	if t := rep.Tree; t != nil {
		// The command itself, ended at its timeout or Ctrl-C, is not
		// among what it left running.
		left := t.Ended
		if t.EndedCommand {
			left--
		}
		if left > 0 {
			fmt.Fprintf(b, "; ended %d process(es) the command left running", left)
		}
	}
	if t := rep.Tree; t != nil && t.Swept != "" {
		b.WriteString("; " + t.Swept)
	}
	if rep.Child.TimedOut {
		b.WriteString("; timed out")
	}
	if !rep.Restore.OK && rep.Restore.Done {
		b.WriteString("; corepin's thread that started it could not be put back, so it was ended")
	}
}

// summarizeConfined says, of a command that failed in a run cgroup that
// held one CPU (exact mode), that its cpuset refuses a program's own
// sched_setaffinity to any other CPU with EINVAL: a program that pins its
// threads itself may have failed on that, and nothing else tells it. The
// kernel keeps no record of a refused call, so it is said as what the
// cpuset does, not as what the program did; observe is the name of the
// command's flag that keeps a program's own choices ("" for none, and no
// advice).
func summarizeConfined(b *strings.Builder, rep *evidence.Scheduling, observe string) {
	t := rep.Tree
	if t == nil || t.CgroupCPUs.Len() != 1 || rep.Refused != "" || rep.ExecError != "" || rep.Child.TimedOut {
		return
	}
	failed := rep.Child.ExitCode != nil && *rep.Child.ExitCode != 0 || rep.Child.Signal != nil && *rep.Child.Signal == "SIGABRT"
	if !failed {
		return
	}
	fmt.Fprintf(b, "; the run's cpuset held only CPU %s, where a program's own sched_setaffinity to any other CPU is refused with EINVAL", t.CgroupCPUs)
	if observe != "" {
		fmt.Fprintf(b, " (%s keeps a program's own choices)", observe)
	}
}

func runningSampleCount(threads []evidence.ThreadStat) int {
	n := 0
	for _, t := range threads {
		n += t.Running
	}
	return n
}

// perCPULine lists a per-CPU account: "CPU 0 0.241s, CPU 1 0.002s".
func perCPULine(secs map[int]float64) string {
	cpus := slices.Sorted(maps.Keys(secs))
	parts := make([]string, len(cpus))
	for i, cpu := range cpus {
		parts[i] = fmt.Sprintf("CPU %d %.3fs", cpu, secs[cpu])
	}
	return strings.Join(parts, ", ")
}
