package judge

import (
	"fmt"
	"strings"
	"testing"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// work is a finished run's evidence for the verdict: the work's CPU time,
// its wait share, its busy threads on usable CPUs, the others' time on the
// target (negative: not measured) from source, and the residency's
// coverage.
type work struct {
	window          float64 // the run's wall time and the others' window; 1 s when 0
	workCPU, wait   float64
	busy, usable    int
	others          float64
	kernel          float64 // of others, the target's own kernel threads'
	source          string
	coverage        float64
	residencySource string
	tooShort        string // Coverage.TooShort
}

func (r work) report() *evidence.Scheduling {
	wall := r.window
	if wall == 0 {
		wall = 1
	}
	sh := &evidence.Sharing{UsableCPUs: r.usable, BusyThreads: r.busy}
	if r.wait >= 0 {
		waitS := r.wait * r.workCPU / (1 - r.wait)
		sh.WaitShare, sh.WaitS = &r.wait, &waitS
	}
	if r.others >= 0 {
		o := &evidence.Others{S: r.others, Share: r.others / (wall * float64(r.usable)), Source: r.source, WorkSource: "cgroup", Exact: true,
			CPUs: r.usable, WindowS: wall, WorkS: r.workCPU, BusyS: r.workCPU + r.others}
		if r.source == "proc_stat" {
			o.ResolutionS, o.Exact = 0.02*float64(r.usable), false
		}
		if r.kernel > 0 {
			o.KernelS, o.KernelThreads = r.kernel, []evidence.Preemptor{{PID: 26, Comm: "migration/1", OnCPUS: r.kernel}}
		}
		sh.Others = o
	}
	cov := r.coverage
	return &evidence.Scheduling{
		Child:    evidence.ChildReport{WallS: wall},
		Sharing:  sh,
		Coverage: &evidence.Coverage{Coverage: &cov, ResidencySource: r.residencySource, TreeCPUS: r.workCPU, TreeSource: "cgroup", TooShort: r.tooShort},
	}
}

// alone is a run of work that had one CPU to itself for 1 s.
func alone() work {
	return work{workCPU: 1, wait: 0, busy: 1, usable: 1, others: 0, source: "cpuacct", coverage: 1, residencySource: "cpuacct"}
}

func with(f func(*work)) work { r := alone(); f(&r); return r }

// reportCases are runs' reports and the rules they are judged by, each
// with what it proves.
var reportCases = []struct {
	name  string
	rules Rules
	rep   *evidence.Scheduling
}{
	{"own CPU", Rules{}, alone().report()},
	// The work's own threads waited for each other while nothing else
	// ran: advice, never sharing (a Go program's runtime threads, an
	// OpenMP team on one CPU).
	{"own threads waited", Rules{}, with(func(r *work) { r.wait, r.busy = 0.08, 4 }).report()},
	// Others took a little, less than half the wait: what they leave of
	// the wait is the work's own, and is said.
	{"own wait beside a little of others'", Rules{}, with(func(r *work) { r.wait, r.others = 0.08, 0.005 }).report()},
	// Others took about as much as the work waited: it waited behind
	// them, too little to say.
	{"a small wait beside as much of others'", Rules{}, with(func(r *work) { r.wait, r.others = 0.02, 0.015 }).report()},
	{"others above --max-others", Rules{}, with(func(r *work) { r.others = 0.05 }).report()},
	{"a lower --max-others", Rules{MaxOthers: 0.005}, with(func(r *work) { r.others = 0.01 }).report()},
	{"below the floor", Rules{MaxOthers: 0.0001}, with(func(r *work) { r.others = 0.0008 }).report()},
	{"/proc/stat's ticks are not sharing", Rules{MaxOthers: 0.001}, with(func(r *work) { r.others, r.source = 0.015, "proc_stat" }).report()},
	// Above --max-others by less than the ticks' resolution: the ticks
	// alone may have made it (exec -- true in an isolcpus guest).
	{"/proc/stat's ticks within their resolution", Rules{}, with(func(r *work) { r.window, r.others, r.source = 0.5, 0.029, "proc_stat" }).report()},
	// The target's own per-CPU kernel threads are said, not judged as
	// sharing: no shield moves them.
	{"the target's own kernel threads", Rules{}, with(func(r *work) { r.others, r.kernel = 0.05, 0.045 }).report()},
	{"the target's own kernel threads, a little", Rules{}, with(func(r *work) { r.others, r.kernel = 0.01, 0.009 }).report()},
	// A competitor is judged by all of its time, beside the kernel
	// threads and the ticks.
	{"shared beside the target's own kernel threads", Rules{}, with(func(r *work) { r.others, r.kernel = 0.5, 0.01 }).report()},
	{"shared, from /proc/stat", Rules{}, with(func(r *work) { r.others, r.source = 0.5, "proc_stat" }).report()},
	{"shared", Rules{}, with(func(r *work) { r.others = 0.5 }).report()},
	// The others' time accounts for the wait: the work waited behind
	// them, which the sharing verdict says, never "cause unknown".
	{"shared, the work waited behind the others", Rules{}, with(func(r *work) { r.others, r.wait = 0.5, 0.33 }).report()},
	{"shared, the wait far above the others' time", Rules{}, with(func(r *work) { r.others, r.wait = 0.2, 0.6 }).report()},
	{"shared, allowed", Rules{AllowSharing: true}, with(func(r *work) { r.others = 0.5 }).report()},
	{"shared, with the preemptors named", Rules{}, func() *evidence.Scheduling {
		rep := with(func(r *work) { r.others = 0.5 }).report()
		rep.Sharing.Preemptors = []evidence.Preemptor{{PID: 41, Comm: "kworker/1:2", OnCPUS: 0.4}, {PID: 802, Comm: "sshd", OnCPUS: 0.1}}
		return rep
	}()},
	{"two busy threads, soft mode", Rules{Mode: evidence.Soft}, with(func(r *work) { r.busy = 2 }).report()},
	{"samples cover little", Rules{}, with(func(r *work) { r.coverage, r.residencySource = 0.3, "sampled" }).report()},
	// exec -- true in an emulated guest: 30 ms of CPU time, most of it
	// before the watcher's first sample.
	{"samples cover little of a run too short to judge", Rules{}, with(func(r *work) {
		r.workCPU, r.coverage, r.residencySource, r.tooShort = 0.03, 0.11, "sampled", "the tree used 0.030s of CPU time, under 5 of the watcher's 100ms periods (500ms)"
	}).report()},
	// sh -c "sleep 1": 4 ms of CPU time in a second beside a competitor
	// says nothing of what the work lost: it slept.
	{"asleep", Rules{}, with(func(r *work) { r.workCPU, r.others, r.wait, r.coverage = 0.004, 0.9, 0.54, 0.1 }).report()},
	{"asleep, by the watcher's wait", Rules{}, func() *evidence.Scheduling {
		rep := with(func(r *work) { r.workCPU, r.others, r.wait, r.coverage = 0.004, 0.9, 0.2, 0.1 }).report()
		run := 0.004
		rep.Watch = &evidence.Watch{RunS: &run}
		return rep
	}()},
	{"asleep, its wait not known", Rules{}, with(func(r *work) { r.workCPU, r.others, r.wait, r.coverage = 0.004, 0.9, -1, 0.1 }).report()},
	// 13 ms of work half taken by a competitor: the exact account judges
	// it as any other.
	{"short, half taken, exact", Rules{}, with(func(r *work) { r.window, r.workCPU, r.others, r.wait = 0.026, 0.013, 0.013, 0.5 }).report()},
	// Without the watcher's wait, 13 ms of CPU in 26 ms is still half the
	// window: judged.
	{"short, half taken, no wait", Rules{}, with(func(r *work) { r.window, r.workCPU, r.others, r.wait = 0.026, 0.013, 0.013, -1 }).report()},
	// /proc/stat's ticks cannot tell a tenth of 26 ms from nothing: the
	// floor is said, no verdict given.
	{"short, ticks", Rules{}, with(func(r *work) {
		r.window, r.workCPU, r.others, r.wait, r.source = 0.026, 0.013, 0.013, 0.5, "proc_stat"
	}).report()},
	{"no reading of the target", Rules{}, with(func(r *work) { r.others = -1; r.wait = 0.3 }).report()},
	// A process that left the run's cgroup was seen outside for only part
	// of its time there when the watcher first looked late: the warning
	// says how much more it may have used, from when it was last seen
	// inside; seen for nearly all of it, the two counts say the same.
	{"a process left, seen late", Rules{}, func() *evidence.Scheduling {
		rep := alone().report()
		rep.Tree = &evidence.TreeReport{LeftCgroup: 1, LeftCgroupCPUS: 0.07, LeftCgroupCPUMaxS: 0.3}
		return rep
	}()},
	{"a process left, seen all along", Rules{}, func() *evidence.Scheduling {
		rep := alone().report()
		rep.Tree = &evidence.TreeReport{LeftCgroup: 1, LeftCgroupCPUS: 0.29, LeftCgroupCPUMaxS: 0.3}
		return rep
	}()},
	{"realtime, throttled", Rules{Throttle: "realtime is throttled: …"}, func() *evidence.Scheduling {
		rep := alone().report()
		rep.Readback.Policy = "fifo"
		return rep
	}()},
	{"not realtime, a throttle", Rules{Throttle: "realtime is throttled: …"}, alone().report()},
}

// TestReport judges every case and holds what it says, whole, in a golden
// file: the verdict, whom the work waited behind, the note, and each
// finding with its kind, severity and text.
func TestReport(t *testing.T) {
	var b strings.Builder
	for _, c := range reportCases {
		v := Report(c.rep, c.rules)
		fmt.Fprintf(&b, "%s\n\tsharing %q, wait cause %q\n", c.name, v.Sharing, v.WaitCause)
		if v.Note != nil {
			fmt.Fprintf(&b, "\tnote: %s\n", Words{Flags: runFlags}.Text(*v.Note))
		}
		writeFindings(&b, Words{Flags: runFlags}, v.Findings)
	}
	golden(t, "report.golden", b.String())
}

func writeFindings(b *strings.Builder, w Words, fs []Finding) {
	for _, f := range fs {
		run := ""
		if f.Run != results.NoRun {
			run = fmt.Sprintf(" run %d", f.Run)
		}
		value := ""
		if f.Value != nil {
			value = fmt.Sprintf(" (%.3g)", *f.Value)
		}
		fmt.Fprintf(b, "\t%s %s%s%s: %s\n", f.Severity, f.Kind, run, value, w.Text(f))
	}
}

// The texts name only the flags the command has: exec has no
// --max-others or --allow-sharing, so its texts name neither.
func TestTextsNameOnlyTheCommandsFlags(t *testing.T) {
	for _, c := range []struct {
		rules Rules
		rep   *evidence.Scheduling
		flag  string
	}{
		{Rules{}, with(func(r *work) { r.others = 0.05 }).report(), "--max-others"},
		{Rules{AllowSharing: true}, with(func(r *work) { r.others = 0.5 }).report(), "--allow-sharing"},
	} {
		v := Report(c.rep, c.rules)
		if len(v.Findings) != 1 {
			t.Fatalf("findings %+v, want one", v.Findings)
		}
		withFlag, without := Words{Flags: runFlags}.Text(v.Findings[0]), Words{}.Text(v.Findings[0])
		if !strings.Contains(withFlag, c.flag) || strings.Contains(without, "--") {
			t.Errorf("with the flags: %q; without: %q", withFlag, without)
		}
	}
}

// A run of the suite records the verdict: its sharing, the others' time
// and its warnings; a shared run is invalid by its error, said even when
// the run is already invalid for another reason (its watcher could not
// vouch for it in exact mode, a failed check).
func TestRecord(t *testing.T) {
	w := Words{Flags: runFlags}
	rec := results.RunRecord{Valid: true, Error: "exit status 1: "}
	rep := with(func(r *work) { r.others = 0.5 }).report()
	rep.Watch = &evidence.Watch{KeepUp: evidence.KeepUp{Unvouched: true, Missed: 13, Expected: 25}}
	w.Record(&rec, rep, Rules{})
	if rec.Valid || rec.Sharing != SharedInvalid || !strings.HasPrefix(rec.Error, "exit status 1: ; the target CPU was shared: others took 50.0%") {
		t.Errorf("valid %v, sharing %q, error %q", rec.Valid, rec.Sharing, rec.Error)
	}
	if len(rec.Checks) != 1 || rec.Checks[0].What != WatcherKeptUp || rec.Checks[0].Detail != "missed 13 of 25 ticks: residency cannot be vouched for" {
		t.Errorf("checks %+v", rec.Checks)
	}
	if rec.OthersS == nil || *rec.OthersS != 0.5 || rec.OthersSource != "cpuacct" || len(rec.Warnings) != 0 {
		t.Errorf("others %v from %q, warnings %+v", rec.OthersS, rec.OthersSource, rec.Warnings)
	}
	if sharedOnly(&rec) {
		t.Error("a run that failed its check is taken as invalid only by its sharing")
	}
	// Soft mode: the watcher's missed ticks do not make it invalid.
	soft := results.RunRecord{Valid: true}
	w.Record(&soft, rep, Rules{Mode: evidence.Soft, AllowSharing: true})
	if !soft.Valid || len(soft.Checks) != 0 || soft.Sharing != SharedAllowed || len(soft.Warnings) != 1 || soft.Warnings[0].Severity != "warn" {
		t.Errorf("soft: valid %v, checks %+v, sharing %q, warnings %+v", soft.Valid, soft.Checks, soft.Sharing, soft.Warnings)
	}
}

// exec is warned of a watcher that missed its ticks, except of a run too
// short to judge, which claims its sampled residency neither way; and of
// the watcher's own cost where it shared the target.
func TestExecSaysWhereTheWatcherFellShort(t *testing.T) {
	missed := evidence.KeepUp{Unvouched: true, Missed: 8, Expected: 10, MissedShare: 0.8, Priority: "fifo:1", TooExpensive: true, CPUShare: 0.05}
	for _, c := range []struct {
		name      string
		tooShort  string
		watcherOn string
		want      []string
	}{
		{"long, watcher on the target", "", "1", []string{"the watcher missed 8 of 10 ticks (80%, at fifo:1): residency cannot be vouched for", "the watcher used 5.0% of a CPU (above 2%): use a longer --watch period"}},
		{"too short, watcher off the target", "the tree used 0.030s of CPU time", "0", nil},
	} {
		rep := alone().report()
		rep.Coverage.TooShort = c.tooShort
		rep.Readback.CPUs = mustSet(t, "1")
		rep.Watch = &evidence.Watch{KeepUp: missed, WatcherCPUs: mustSet(t, c.watcherOn)}
		var got []string
		for _, f := range Exec(rep, Rules{AllowSharing: true}) {
			got = append(got, Words{Flags: Flags{Watch: "--watch"}}.Text(f))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
