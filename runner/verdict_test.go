package runner

import (
	"strings"
	"testing"

	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/session"
)

// run is a finished run's record for the verdict: the work's CPU time,
// its wait share, its busy threads on usable CPUs, the others' time on the
// target (negative: not measured) from source, and the residency's
// coverage.
type run struct {
	window          float64 // the run's wall time and the others' window; 1 s when 0
	workCPU, wait   float64
	busy, usable    int
	others          float64
	source          string
	coverage        float64
	residencySource string
	tooShort        string // launch.Coverage.TooShort
}

func (r run) report() *launch.Report {
	wall := r.window
	if wall == 0 {
		wall = 1
	}
	sh := &launch.Sharing{UsableCPUs: r.usable, BusyThreads: r.busy}
	if r.wait >= 0 {
		waitS := r.wait * r.workCPU / (1 - r.wait)
		sh.WaitShare, sh.WaitS = &r.wait, &waitS
	}
	if r.others >= 0 {
		o := &launch.Others{S: r.others, Share: r.others / (wall * float64(r.usable)), Source: r.source, WorkSource: "cgroup", Exact: true,
			CPUs: r.usable, WindowS: wall, WorkS: r.workCPU, BusyS: r.workCPU + r.others}
		if r.source == launch.BusyProcStat {
			o.ResolutionS, o.Exact = 0.02*float64(r.usable), false
		}
		sh.Others = o
	}
	cov := r.coverage
	return &launch.Report{Scheduling: evidence.Scheduling{
		Child:    launch.ChildReport{WallS: wall},
		Sharing:  sh,
		Coverage: &launch.Coverage{Coverage: &cov, ResidencySource: r.residencySource, TreeCPUS: r.workCPU, TreeSource: "cgroup", TooShort: r.tooShort},
	}}
}

// busy is a run of work that had one CPU to itself for 1 s.
func busy() run {
	return run{workCPU: 1, wait: 0, busy: 1, usable: 1, others: 0, source: launch.BusyCpuacct, coverage: 1, residencySource: "cpuacct"}
}

func TestJudge(t *testing.T) {
	with := func(f func(*run)) run { r := busy(); f(&r); return r }
	for _, c := range []struct {
		name        string
		cfg         Config
		run         run
		valid       bool
		sharing     string
		error, warn string
		cause       string
	}{
		{"own CPU", Config{}, busy(), true, NotShared, "", "", ""},
		// The work's own threads waited for each other while nothing else
		// ran: advice, never sharing (a Go program's runtime threads, an
		// OpenMP team on one CPU).
		{"own threads waited", Config{}, with(func(r *run) { r.wait, r.busy = 0.08, 4 }), true, NotShared, "",
			"the work's own threads waited 8.0% of their time for the target CPU, behind each other (what else ran there took too little to cause it); 4 busy threads of the work took turns on 1 target CPU(s): its own contention, not sharing", "own threads"},
		// Others took a little, less than half the wait: what they leave
		// of the wait is the work's own, and is said.
		{"own wait beside a little of others'", Config{}, with(func(r *run) { r.wait, r.others = 0.08, 0.005 }), true, NotShared, "",
			"the work's own threads waited 7.5% of their time", "own threads"},
		// Others took about as much as the work waited: it waited behind
		// them, too little to say.
		{"a small wait beside as much of others'", Config{}, with(func(r *run) { r.wait, r.others = 0.02, 0.015 }), true, NotShared, "", "", "others"},
		{"others above --max-others", Config{}, with(func(r *run) { r.others = 0.05 }), true, SharedWarned, "",
			"others took 5.0% of the target CPU's time (50.0 ms of 1.000 s on 1 CPU(s), from cpuacct), above --max-others 2.0%", ""},
		{"a lower --max-others", Config{MaxOthers: 0.005}, with(func(r *run) { r.others = 0.01 }), true, SharedWarned, "", "above --max-others 0.5%", ""},
		{"below the floor", Config{MaxOthers: 0.0001}, with(func(r *run) { r.others = 0.0008 }), true, NotShared, "", "", ""},
		{"/proc/stat's ticks are not sharing", Config{MaxOthers: 0.001}, with(func(r *run) { r.others, r.source = 0.015, launch.BusyProcStat }), true, NotShared, "", "", ""},
		{"shared", Config{}, with(func(r *run) { r.others = 0.5 }), false, SharedInvalid, "the target CPU was shared: others took 50.0% of the target CPU's time", "", ""},
		// The others' time accounts for the wait: the work waited behind
		// them, which the sharing verdict says, never "cause unknown".
		{"shared, the work waited behind the others", Config{}, with(func(r *run) { r.others, r.wait = 0.5, 0.33 }), false, SharedInvalid, "the target CPU was shared", "", "others"},
		{"shared, the wait far above the others' time", Config{}, with(func(r *run) { r.others, r.wait = 0.2, 0.6 }), false, SharedInvalid, "the target CPU was shared",
			"the work waited 60.0% of its time for the target CPU (cause unknown)", "unknown"},
		{"shared, allowed", Config{AllowSharing: true}, with(func(r *run) { r.others = 0.5 }), true, SharedAllowed, "", "(allowed by --allow-sharing)", ""},
		{"two busy threads, soft mode", Config{Request: session.Request{Mode: session.Soft}}, with(func(r *run) { r.busy = 2 }), true, NotShared, "", "", ""},
		{"samples cover little", Config{}, with(func(r *run) { r.coverage, r.residencySource = 0.3, "sampled" }), true, NotShared, "", "the sampled residency covers only 30% of the tree's CPU time", ""},
		// exec -- true in an emulated guest: 30 ms of CPU time, most of it
		// before the watcher's first sample.
		{"samples cover little of a run too short to judge", Config{}, with(func(r *run) {
			r.workCPU, r.coverage, r.residencySource, r.tooShort = 0.03, 0.11, "sampled", "the tree used 0.030s of CPU time, under 5 of the watcher's 100ms periods (500ms)"
		}), true, NotShared, "", "", ""},
		// sh -c "sleep 1": 4 ms of CPU time in a second beside a competitor
		// says nothing of what the work lost: it slept.
		{"asleep", Config{}, with(func(r *run) { r.workCPU, r.others, r.wait, r.coverage = 0.004, 0.9, 0.54, 0.1 }), true, TooShort, "", "", "others"},
		// 13 ms of work half taken by a competitor: the exact account
		// judges it as any other.
		{"short, half taken, exact", Config{}, with(func(r *run) { r.window, r.workCPU, r.others, r.wait = 0.026, 0.013, 0.013, 0.5 }), false, SharedInvalid,
			"others took 50.0% of the target CPU's time (13.0 ms of 26.0 ms on 1 CPU(s), from cpuacct)", "", "others"},
		// Without the watcher's wait, 13 ms of CPU in 26 ms is still half
		// the window: judged.
		{"short, half taken, no wait", Config{}, with(func(r *run) { r.window, r.workCPU, r.others, r.wait = 0.026, 0.013, 0.013, -1 }), false, SharedInvalid, "others took 50.0%", "", ""},
		// /proc/stat's ticks cannot tell a tenth of 26 ms from nothing: the
		// floor is said, no verdict given.
		{"short, ticks", Config{}, with(func(r *run) {
			r.window, r.workCPU, r.others, r.wait, r.source = 0.026, 0.013, 0.013, 0.5, launch.BusyProcStat
		}), true, TooShort, "",
			"too short to judge sharing from proc_stat: with no nanosecond account of the target here (cpuacct), its ticks of 10.0 ms leave a run's others' time 20.0 ms uncertain, so only runs of at least 210.0 ms can tell a tenth of the target taken by others from none", "unknown"},
		{"no reading of the target", Config{}, with(func(r *run) { r.others = -1; r.wait = 0.3 }), true, SharingUnknown, "", "the work waited 30.0% of its time for the target CPU (cause unknown)", "unknown"},
		// Already invalid (its watcher could not vouch for it): the sharing
		// is still said, so that the shared time is not counted.
		{"shared and unvouched", Config{}, with(func(r *run) { r.others = 0.5 }), false, SharedInvalid, "the target CPU was shared", "", ""},
	} {
		rec := results.RunRecord{Valid: true}
		if c.name == "shared and unvouched" {
			rec = unvouched(rec)
		}
		c.cfg.judge(&rec, c.run.report())
		warns := strings.Join(results.WarningTexts(rec.Warnings), "; ")
		if rec.Valid != c.valid || rec.Sharing != c.sharing || !strings.Contains(rec.Error, c.error) || (c.error == "") != (rec.Error == "") ||
			(c.warn == "") != (warns == "") || !strings.Contains(warns, c.warn) || rec.WaitCause != c.cause {
			t.Errorf("%s: valid %v, sharing %q, error %q, warnings %q, wait cause %q", c.name, rec.Valid, rec.Sharing, rec.Error, warns, rec.WaitCause)
		}
	}
}

func unvouched(rec results.RunRecord) results.RunRecord {
	rec.Valid = false
	rec.Checks = append(rec.Checks, evidence.Outcome{What: "the watcher kept up", Detail: "missed 13 of 25 ticks"})
	return rec
}

// A process that left the run's cgroup was seen outside for only part of
// its time there when the watcher first looked late: the warning says how
// much more it may have used, from when it was last seen inside.
func TestJudgeSaysWhatAProcessThatLeftMayHaveUsed(t *testing.T) {
	for _, c := range []struct {
		seen, most float64
		want, not  string
	}{
		{0.07, 0.3, "their CPU time (70.0 ms) is counted from /proc, their residency is sampled; from when each was last seen inside (or from its start), they used up to 300.0 ms", ""},
		{0.29, 0.3, "their CPU time (290.0 ms) is counted from /proc", "used up to"},
	} {
		rep := busy().report()
		rep.Tree = &launch.TreeReport{LeftCgroup: 1, LeftCgroupCPUS: c.seen, LeftCgroupCPUMaxS: c.most}
		rec := results.RunRecord{Valid: true}
		cfg := Config{}
		cfg.judge(&rec, rep)
		warns := strings.Join(results.WarningTexts(rec.Warnings), "; ")
		if !strings.Contains(warns, c.want) || (c.not != "" && strings.Contains(warns, c.not)) {
			t.Errorf("seen %.3f s, at most %.3f s: warnings %q, want %q", c.seen, c.most, warns, c.want)
		}
	}
}
