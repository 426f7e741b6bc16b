package runner

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// Thresholds of the verdict on a run's target. A target is shared when
// its time went to something outside the work: the target's busy time
// less the work's own time there (launch.Others). The work's wait for its
// CPU is not the measure: its own threads wait for each other too.
const (
	// DefaultMaxOthers: above this share of the target's time going to
	// others a run is warned; above InvalidOthers it is invalid, unless
	// sharing is allowed.
	DefaultMaxOthers = 0.02
	InvalidOthers    = 0.10
	// MinWorkCPU: a run whose work used less CPU time than this says
	// nothing by its own wait, busy threads or sampled coverage: a few
	// scheduler slices' worth. Sharing is judged by the exactness of the
	// target's account instead (see sharingJudgeable).
	MinWorkCPU = 20 * time.Millisecond
	// WantedShare: a run whose work wanted a CPU (ran on one or waited
	// for one) for less than this share of its window mostly slept, and
	// what others took of the target while it slept cost it nothing
	// (sh -c "sleep 1" beside a busy loop). SleptShare: where the work's
	// wait is not known for all of it, only work that used a CPU for this
	// share of its window or less is taken to have slept.
	WantedShare = 0.5
	SleptShare  = 0.1
	// MinOthers: others' time below this, plus the readings' own
	// resolution, is nothing: the kernel's and corepin's own
	// microseconds on the target around the fork.
	MinOthers = time.Millisecond
	// OwnWaitWarn: a wait above this share of the work's time is said
	// (advice: its threads took turns), never a reason to invalidate.
	OwnWaitWarn = 0.02
	// CoverageWarn: below it the residency describes too little of the
	// tree's CPU time to stand for the work.
	CoverageWarn = 0.80
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

// Whom the work's wait was behind (Verdict.WaitCause).
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

// Rules are what a run is judged against.
type Rules struct {
	// MaxOthers is the share of the target's time others may take before
	// a run is warned (DefaultMaxOthers when 0); MaxOthersName is what a
	// warning calls it, "--max-others" when "": an import, which has no
	// such flag, names the threshold itself.
	MaxOthers     float64
	MaxOthersName string
	// AllowSharing keeps a run above InvalidOthers valid, with a warning.
	AllowSharing bool
	// Mode is the request's mode: in exact mode more busy threads than
	// target CPUs is said.
	Mode session.Mode
}

// Verdict is the judgement of one run: the one used by run and exec.
type Verdict struct {
	Sharing string
	// Invalid says why the run must not count; "" when it may.
	Invalid string
	// WaitCause says whom the work's wait was behind: WaitOwnThreads,
	// WaitBehindOthers or WaitUnknown; "" when it did not wait.
	WaitCause string
	// SharingNote says why a run's sharing could not be judged (Sharing
	// TooShort); "" otherwise.
	SharingNote string
	Warnings    []results.Warning
}

// Judge judges a run from its launch report.
func Judge(rep *launch.Report, rules Rules) Verdict {
	v := Verdict{Sharing: SharingUnknown}
	if rep == nil || rep.Sharing == nil {
		return v
	}
	maxOthers := rules.MaxOthers
	if maxOthers <= 0 {
		maxOthers = DefaultMaxOthers
	}
	warn := v.warn
	sh, o := rep.Sharing, rep.Sharing.Others
	work := workCPU(rep)
	var floor time.Duration
	if o != nil {
		floor = MinOthers + seconds(o.ResolutionS)
	}
	switch {
	case o == nil:
	case coarse(o):
		// Said once for a whole run, whose runs it concerns alike; exec
		// says it as a note, not a warning.
		v.Sharing, v.SharingNote = TooShort, coarseNote(o)
		warn(results.KindTooShort, nil, "%s", v.SharingNote)
	case seconds(o.S) <= floor || o.Share <= maxOthers:
		v.Sharing = NotShared
	case asleep(work, rep, o) != "":
		v.Sharing, v.SharingNote = TooShort, asleep(work, rep, o) // says why
	default:
		v.judgeShared(rep, rules, maxOthers)
	}
	// Whom the work waited behind is said of every run; the wait itself
	// only of work long enough for a share of it to mean anything.
	long := work >= MinWorkCPU
	if ws := sh.WaitShare; ws != nil && sh.WaitS != nil && *sh.WaitS > 0 {
		wait := seconds(*sh.WaitS)
		wanted := wait.Seconds() / *ws // the time the work wanted a CPU
		share := *ws
		switch {
		case o != nil && seconds(o.S) > floor && seconds(o.S) >= wait/2:
			// Others' time on the target accounts for at least half of
			// the wait: the work waited behind them. Their share is the
			// sharing verdict's to say (or below --max-others, not
			// worth saying); the wait is not said again as unexplained.
			v.WaitCause = WaitBehindOthers
		case o != nil && v.Sharing == NotShared:
			// Others took too little of the target to matter: the wait
			// was the work's own, all of it where others' time is
			// nothing, else at least what others' time leaves of it. That
			// part is what is said; where it is small, nothing is.
			v.WaitCause = WaitOwnThreads
			if seconds(o.S) > floor {
				share = max(0, wait.Seconds()-o.S) / wanted
			}
			if long && share > OwnWaitWarn {
				warn(results.KindOwnWait, &share, "the work's own threads waited %.1f%% of their time for the target CPU, behind each other (what else ran there took too little to cause it)", 100*share)
			}
		default:
			// The target could not be read, or others' time accounts
			// for less than half of the wait while the target was
			// shared: whom the work waited behind is not known.
			v.WaitCause = WaitUnknown
			if long && share > OwnWaitWarn {
				warn(results.KindWait, &share, "the work waited %.1f%% of its time for the target CPU (cause unknown)", 100*share)
			}
		}
	}
	if rules.Mode != session.Soft && sh.BusyThreads > sh.UsableCPUs && long {
		n := float64(sh.BusyThreads)
		warn(results.KindOwnThreads, &n, "%d busy threads of the work took turns on %d target CPU(s): its own contention, not sharing", sh.BusyThreads, sh.UsableCPUs)
	}
	if c := rep.Coverage; c != nil && c.Coverage != nil && *c.Coverage < CoverageWarn && long && c.TooShort == "" {
		cov := *c.Coverage
		warn(results.KindCoverage, &cov, "the %s residency covers only %.0f%% of the tree's CPU time: threads and processes that lived between two samples were not seen", c.ResidencySource, 100*cov)
	}
	if tr := rep.Tree; tr != nil && tr.LeftCgroup > 0 {
		n := float64(tr.LeftCgroup)
		warn(results.KindLeftCgroup, &n, "%d process(es) left the run's cgroup: their CPU time (%s) is counted from /proc, their residency is sampled%s",
			tr.LeftCgroup, results.FormatSeconds(tr.LeftCgroupCPUS), leftUpTo(tr))
	}
	if rep.Readback.Policy.Realtime() {
		if t, err := sched.ReadRTThrottle(fsroot.Host); err == nil && t.Active() {
			warn(results.KindRealtime, nil, "%s", t.Warning())
		}
	}
	return v
}

// warn adds a warning about the run.
func (v *Verdict) warn(kind string, value *float64, format string, a ...any) {
	v.Warnings = append(v.Warnings, results.Warning{Run: results.NoRun, Kind: kind, Value: value, Text: fmt.Sprintf(format, a...)})
}

// judgeShared says how shared a target was whose others' time is above
// the floor and --max-others, for work that wanted its CPU.
func (v *Verdict) judgeShared(rep *launch.Report, rules Rules, maxOthers float64) {
	sh, o := rep.Sharing, rep.Sharing.Others
	share := o.Share
	what := fmt.Sprintf("others took %.1f%% of the target CPU's time (%s of %s on %d CPU(s), from %s)",
		100*share, results.FormatSeconds(o.S), results.FormatSeconds(o.WindowS), o.CPUs, othersSource(o))
	if len(sh.Preemptors) > 0 {
		what += ": " + launch.PreemptorsText(sh.Preemptors)
	}
	switch {
	case share <= max(InvalidOthers, maxOthers):
		v.Sharing = SharedWarned
		v.warn(results.KindShared, &share, "%s, above %s %.1f%%", what, cmp.Or(rules.MaxOthersName, "--max-others"), 100*maxOthers)
	case rules.AllowSharing:
		v.Sharing = SharedAllowed
		v.warn(results.KindShared, &share, "the target CPU was shared: %s", what)
	default:
		v.Sharing = SharedInvalid
		v.Invalid = sharedPrefix + what // the run's error says it
	}
}

// coarse reports whether the target's account is too coarse for the
// run's window: a tenth of the target taken by others would not rise
// above the readings' own resolution (/proc/stat's ticks) and MinOthers.
// The nanosecond accounts (cpuacct) are never too coarse.
func coarse(o *launch.Others) bool {
	return o.ResolutionS > 0 && o.WindowS*float64(max(o.CPUs, 1))*InvalidOthers <= (MinOthers+seconds(o.ResolutionS)).Seconds()
}

// coarseNote says the floor coarse judges by, and why.
func coarseNote(o *launch.Others) string {
	least := (MinOthers.Seconds() + o.ResolutionS) / (InvalidOthers * float64(max(o.CPUs, 1)))
	return fmt.Sprintf("too short to judge sharing from %s: with no nanosecond account of the target here (cpuacct), its ticks of %s leave a run's others' time %s uncertain, so only runs of at least %s can tell a tenth of the target taken by others from none",
		o.Source, results.FormatSeconds(procfs.Tick.Seconds()), results.FormatSeconds(o.ResolutionS), results.FormatSeconds(least))
}

// asleep says why a run whose target others used mostly slept, "" when
// its work wanted a CPU for enough of its window to be judged. Where the
// watcher's schedstat spans most of the work's CPU time, its wait is the
// work's: the work that ran or waited for a CPU for less than WantedShare
// of the window slept. Elsewhere (a command shorter than the watcher's
// first look, whose wait before it is not known) only work that used a
// CPU for SleptShare of the window or less is taken to have slept: beside
// a competitor of its own priority, work held back still gets half.
func asleep(work time.Duration, rep *launch.Report, o *launch.Others) string {
	sh, w := rep.Sharing, rep.Watch
	if sh.WaitS != nil && w != nil && w.RunS != nil && seconds(*w.RunS) >= work*8/10 {
		wanted := work + seconds(*sh.WaitS)
		if wanted.Seconds() >= WantedShare*o.WindowS {
			return ""
		}
		return fmt.Sprintf("the work wanted a CPU for %s of the run's %s (it slept or waited on something else): what others took of the target while it slept cost it nothing",
			results.FormatSeconds(wanted.Seconds()), results.FormatSeconds(o.WindowS))
	}
	if work.Seconds() > SleptShare*o.WindowS {
		return ""
	}
	return fmt.Sprintf("the work used a CPU for %s of the run's %s, and its wait for one is not known for all of it: a run that slept cannot be told from one that others held back",
		results.FormatSeconds(work.Seconds()), results.FormatSeconds(o.WindowS))
}

// workCPU is the work's whole CPU time: the tree's account, else its
// rusage.
func workCPU(rep *launch.Report) time.Duration {
	if c := rep.Coverage; c != nil {
		return seconds(c.TreeCPUS)
	}
	return seconds(rep.Child.UserS + rep.Child.SysS)
}

// othersSource names where the others' time comes from.
func othersSource(o *launch.Others) string {
	s := o.Source
	if !o.Exact {
		s += ", the work's part estimated from " + o.WorkSource
	}
	return s
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// judge records the verdict on a run of the suite: its others' time and
// sharing, and its warnings; a shared run is invalid (said even when the
// run is already invalid for another reason: a shared run's time is never
// counted).
func (cfg *Config) judge(rec *results.RunRecord, sch *launch.Report) {
	if sch == nil || sch.Sharing == nil {
		return
	}
	v := Judge(sch, Rules{MaxOthers: cfg.MaxOthers, AllowSharing: cfg.AllowSharing, Mode: cfg.Request.ModeOrDefault()})
	rec.Sharing, rec.WaitCause, rec.SharingNote = v.Sharing, v.WaitCause, v.SharingNote
	for _, w := range v.Warnings {
		if w.Kind == results.KindShared && v.Sharing == SharedAllowed {
			w.Text += " (allowed by --allow-sharing)"
		}
		rec.Warnings = append(rec.Warnings, w)
	}
	if o := sch.Sharing.Others; o != nil {
		s, share := o.S, o.Share
		rec.OthersS, rec.OthersShare, rec.OthersSource = &s, &share, othersSource(o)
	}
	if v.Invalid == "" {
		return
	}
	rec.Valid = false
	switch {
	case rec.Error == "":
		rec.Error = v.Invalid
	case !strings.Contains(rec.Error, v.Invalid):
		rec.Error += "; " + v.Invalid
	}
}

// maxOthers is the --max-others in force.
func (cfg *Config) maxOthers() float64 {
	if cfg.MaxOthers <= 0 {
		return DefaultMaxOthers
	}
	return cfg.MaxOthers
}

// leftUpTo says how much more the processes that left the run's cgroup
// may have used outside it: the kernel does not say when they moved, only
// that each was inside at one look and outside at the next. Less than two
// of /proc's 10 ms ticks apart, the two counts say the same.
func leftUpTo(tr *launch.TreeReport) string {
	if tr.LeftCgroupCPUMaxS-tr.LeftCgroupCPUS < 0.02 {
		return ""
	}
	return fmt.Sprintf("; from when each was last seen inside (or from its start), they used up to %s: the kernel does not say when they moved", results.FormatSeconds(tr.LeftCgroupCPUMaxS))
}
