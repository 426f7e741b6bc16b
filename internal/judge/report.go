package judge

import (
	"time"

	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// The verdicts on a target (results.RunRecord.Sharing).
const (
	NotShared      = "not shared"
	SharedWarned   = "shared (warned)"
	SharedInvalid  = "shared (invalid)"
	SharedAllowed  = "shared (allowed)"
	TooShort       = "too short to judge sharing"
	SharingUnknown = "unknown"
)

// Whom the work's wait was behind (results.RunRecord.WaitCause).
const (
	// WaitOwnThreads: nothing else, or far less than the wait, ran on the
	// target.
	WaitOwnThreads = "own threads"
	// WaitBehindOthers: others' time on the target accounts for at least
	// half of the wait.
	WaitBehindOthers = "others"
	// WaitUnknown: the target could not be read, or what ran there
	// accounts for too little of the wait to say.
	WaitUnknown = "unknown"
)

// Rules are what a run is judged against: the command's settings, and
// what the caller read of the machine for it.
type Rules struct {
	// MaxOthers is the share of the target's time others may take before
	// a run is warned (DefaultMaxOthers when 0).
	MaxOthers float64
	// AllowSharing keeps a run above InvalidOthers valid, with a warning.
	AllowSharing bool
	// Mode is the request's mode: in exact mode more busy threads than
	// target CPUs is said, and a watcher that could not keep up makes a
	// run of the suite invalid.
	Mode evidence.Mode
	// Throttle says what the realtime throttle costs a realtime thread
	// (sched.RTThrottle's warning), read by the caller on the machine
	// that ran the work; "" when it costs nothing or is not known.
	Throttle string
}

func (r Rules) maxOthers() float64 {
	if r.MaxOthers <= 0 {
		return DefaultMaxOthers
	}
	return r.MaxOthers
}

// Verdict is the judgement of one run's report: the one that run, exec
// and the import of SPEC's runs give.
type Verdict struct {
	Sharing string
	// WaitCause says whom the work's wait was behind: WaitOwnThreads,
	// WaitBehindOthers or WaitUnknown; "" when it did not wait.
	WaitCause string
	// Note says why the run's sharing could not be judged (Sharing
	// TooShort); nil otherwise.
	Note *Finding
	// Findings are what the run's record keeps and exec says, in order:
	// the finding that makes it invalid (Severity Invalid), its warnings
	// and its notes.
	Findings []Finding
}

// Invalid is the finding that makes the run invalid, if one does.
func (v Verdict) Invalid() (Finding, bool) {
	for _, f := range v.Findings {
		if f.Severity == Invalid {
			return f, true
		}
	}
	return Finding{}, false
}

// Report judges a run from its report: its target's sharing, the work's
// wait and threads, what its residency covers, what left its cgroup and
// what realtime costs it.
func Report(rep *evidence.Scheduling, r Rules) Verdict {
	v := Verdict{Sharing: SharingUnknown}
	if rep == nil || rep.Sharing == nil {
		return v
	}
	f := &facts{rules: r, rep: rep, verdict: &v}
	v.Findings = f.judge(onReport)
	return v
}

// workCPU is the work's whole CPU time: the tree's account, else its
// rusage.
func workCPU(rep *evidence.Scheduling) time.Duration {
	if c := rep.Coverage; c != nil {
		return duration(c.TreeCPUS)
	}
	return duration(rep.Child.UserS + rep.Child.SysS)
}

// long reports whether the work used enough CPU time for its wait, busy
// threads and sampled coverage to mean anything.
func long(rep *evidence.Scheduling) bool { return workCPU(rep) >= MinWorkCPU }

// floor is the others' time that is nothing: MinOthers and the readings'
// own resolution.
func floor(o *evidence.Others) time.Duration { return MinOthers + duration(o.ResolutionS) }

// judgedS is the others' time the judge weighs: S less the target's own
// per-CPU kernel threads (KernelS), which no shield or tune moves, and
// less the readings' resolution, by which /proc/stat's ticks alone may
// make others of nothing. Others of the nanosecond account (cpuacct)
// have no resolution to take off: a competitor is judged by all of its
// time.
func judgedS(o *evidence.Others) time.Duration {
	return max(0, duration(o.S-o.KernelS-o.ResolutionS))
}

// judgedShare is judgedS's share of the target's time in the window.
func judgedShare(o *evidence.Others) float64 {
	if o.WindowS <= 0 || o.CPUs <= 0 {
		return o.Share
	}
	return min(1, judgedS(o).Seconds()/(o.WindowS*float64(o.CPUs)))
}

// sharing judges the target: shared or not, too short to say, or work
// that mostly slept.
func sharing(f *facts) []Finding {
	rep, v := f.rep, f.verdict
	o := rep.Sharing.Others
	switch {
	case o == nil:
		return nil
	case isCoarse(o):
		// Said once for a whole run, whose runs it concerns alike; exec
		// says it as a note, not a warning.
		n := find(results.KindTooShort, Note, nil, coarseOf(o))
		v.Sharing, v.Note = TooShort, &n
		return []Finding{n}
	case judgedS(o) <= MinOthers || judgedShare(o) <= f.rules.maxOthers():
		v.Sharing = NotShared
		return kernelThreads(f, o)
	}
	if p, ok := slept(rep, o); ok {
		n := find(results.KindTooShort, Note, nil, p)
		v.Sharing, v.Note = TooShort, &n
		return nil
	}
	return []Finding{sharedTarget(f, o)}
}

// sharedTarget says how shared a target was whose others' time is above
// the floor and --max-others, for work that wanted its CPU.
func sharedTarget(f *facts, o *evidence.Others) Finding {
	p := shared{share: o.Share, othersS: o.S, windowS: o.WindowS, cpus: o.CPUs, source: othersSource(o),
		preemptors: evidence.PreemptorsText(f.rep.Sharing.Preemptors), maxOthers: f.rules.maxOthers(),
		judged: judgedShare(o), kernelS: o.KernelS, resolutionS: o.ResolutionS}
	sev := Warn
	switch {
	case p.judged <= max(InvalidOthers, p.maxOthers):
		p.verdict = SharedWarned
	case f.rules.AllowSharing:
		p.verdict = SharedAllowed
	default:
		p.verdict, sev = SharedInvalid, Invalid // the run's error says it
	}
	f.verdict.Sharing = p.verdict
	return find(results.KindShared, sev, ptr(o.Share), p)
}

// kernelThreads says, as a note, the target's own per-CPU kernel threads'
// time where it matters: where they alone took more of the target than
// --max-others, which the judge would otherwise have called sharing.
func kernelThreads(f *facts, o *evidence.Others) []Finding {
	if o.WindowS <= 0 || o.CPUs <= 0 {
		return nil
	}
	share := o.KernelS / (o.WindowS * float64(o.CPUs))
	if duration(o.KernelS) <= MinOthers || share <= f.rules.maxOthers() {
		return nil
	}
	return []Finding{find(results.KindKernelThreads, Note, ptr(share), ownKernel{share: share, s: o.KernelS, windowS: o.WindowS, threads: evidence.PreemptorsText(o.KernelThreads)})}
}

// isCoarse reports whether the target's account is too coarse for the
// run's window: a tenth of the target taken by others would not rise
// above the readings' own resolution (/proc/stat's ticks) and MinOthers.
// The nanosecond accounts (cpuacct) are never too coarse.
func isCoarse(o *evidence.Others) bool {
	return o.ResolutionS > 0 && o.WindowS*float64(max(o.CPUs, 1))*InvalidOthers <= floor(o).Seconds()
}

// coarseOf is the floor a coarse account judges by, and why.
func coarseOf(o *evidence.Others) coarse {
	at := (MinOthers.Seconds() + o.ResolutionS) / (InvalidOthers * float64(max(o.CPUs, 1)))
	return coarse{source: o.Source, tickS: procfs.Tick.Seconds(), resolutionS: o.ResolutionS, atS: at}
}

// slept says why a run whose target others used mostly slept, ok false
// when its work wanted a CPU for enough of its window to be judged. Where
// the watcher's schedstat spans most of the work's CPU time, its wait is
// the work's: the work that ran or waited for a CPU for less than
// WantedShare of the window slept. Elsewhere (a command shorter than the
// watcher's first look, whose wait before it is not known) only work that
// used a CPU for SleptShare of the window or less is taken to have slept:
// beside a competitor of its own priority, work held back still gets
// half.
func slept(rep *evidence.Scheduling, o *evidence.Others) (asleep, bool) {
	sh, w, work := rep.Sharing, rep.Watch, workCPU(rep)
	if sh.WaitS != nil && w != nil && w.RunS != nil && duration(*w.RunS) >= work*8/10 {
		wanted := work + duration(*sh.WaitS)
		return asleep{waitKnown: true, wantedS: wanted.Seconds(), windowS: o.WindowS}, wanted.Seconds() < WantedShare*o.WindowS
	}
	return asleep{wantedS: work.Seconds(), windowS: o.WindowS}, work.Seconds() <= SleptShare*o.WindowS
}

// wait says whom the work waited behind, of every run, and the wait
// itself of work long enough for a share of it to mean anything.
func wait(f *facts) []Finding {
	sh, o, v := f.rep.Sharing, f.rep.Sharing.Others, f.verdict
	if sh.WaitShare == nil || sh.WaitS == nil || *sh.WaitS <= 0 {
		return nil
	}
	w := duration(*sh.WaitS)
	wanted := w.Seconds() / *sh.WaitShare // the time the work wanted a CPU
	share := *sh.WaitShare
	switch {
	case o != nil && duration(o.S) > floor(o) && duration(o.S) >= w/2:
		// Others' time on the target accounts for at least half of the
		// wait: the work waited behind them. Their share is the sharing
		// verdict's to say (or below --max-others, not worth saying).
		v.WaitCause = WaitBehindOthers
		return nil
	case o != nil && v.Sharing == NotShared:
		// Others took too little of the target to matter: the wait was
		// the work's own, all of it where others' time is nothing, else
		// at least what others' time leaves of it.
		v.WaitCause = WaitOwnThreads
		if duration(o.S) > floor(o) {
			share = max(0, w.Seconds()-o.S) / wanted
		}
		return waitFinding(f, waited{own: true, share: share}, results.KindOwnWait)
	}
	// The target could not be read, or others' time accounts for less
	// than half of the wait while the target was shared.
	v.WaitCause = WaitUnknown
	return waitFinding(f, waited{share: share}, results.KindWait)
}

func waitFinding(f *facts, p waited, kind string) []Finding {
	if !long(f.rep) || p.share <= OwnWaitWarn {
		return nil
	}
	return []Finding{find(kind, Warn, ptr(p.share), p)}
}

// ownThreads says, in exact mode, that more busy threads than target
// CPUs took turns: the work's own contention.
func ownThreads(f *facts) []Finding {
	sh := f.rep.Sharing
	if f.rules.Mode == evidence.Soft || sh.BusyThreads <= sh.UsableCPUs || !long(f.rep) {
		return nil
	}
	return []Finding{find(results.KindOwnThreads, Warn, ptr(float64(sh.BusyThreads)), turns{busy: sh.BusyThreads, usable: sh.UsableCPUs})}
}

// coverage says when the residency describes too little of the tree's
// CPU time to stand for the work.
func coverage(f *facts) []Finding {
	c := f.rep.Coverage
	if c == nil || c.Coverage == nil || *c.Coverage >= CoverageWarn || !long(f.rep) || c.TooShort != "" {
		return nil
	}
	return []Finding{find(results.KindCoverage, Warn, ptr(*c.Coverage), covers{source: c.ResidencySource, coverage: *c.Coverage})}
}

// leftCgroup says that processes left the run's cgroup.
func leftCgroup(f *facts) []Finding {
	tr := f.rep.Tree
	if tr == nil || tr.LeftCgroup <= 0 {
		return nil
	}
	return []Finding{find(results.KindLeftCgroup, Warn, ptr(float64(tr.LeftCgroup)), left{n: tr.LeftCgroup, cpuS: tr.LeftCgroupCPUS, mostS: tr.LeftCgroupCPUMaxS})}
}

// realtime says what the realtime throttle costs work that ran realtime.
func realtime(f *facts) []Finding {
	if !f.rep.Readback.Policy.Realtime() || f.rules.Throttle == "" {
		return nil
	}
	return []Finding{find(results.KindRealtime, Warn, nil, said{f.rules.Throttle})}
}

// othersSource names where the others' time comes from.
func othersSource(o *evidence.Others) string {
	s := o.Source
	if !o.Exact {
		s += ", the work's part estimated from " + o.WorkSource
	}
	return s
}

// duration is s seconds.
func duration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
