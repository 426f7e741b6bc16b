package spec

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/buildinfo"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/runner"
	"corepin.dev/corepin/telemetry"
)

// Import is a SPEC result and what is joined with it: corepin exec's
// reports of its commands and corepin's telemetry around it.
type Import struct {
	Result *Result
	Source results.Source
	// Reports are corepin exec's reports of the run's commands, read
	// from EvidenceDir ("" for none).
	Reports     []Report
	EvidenceDir string
	// Curves are exec --telemetry's CSVs beside the reports, by their
	// names; a command's curves begin at its report's telemetry start.
	Curves map[string][]telemetry.Sample
	// Telemetry is corepin telemetry's series around the whole runcpu,
	// from TelemetryFile; nil for none.
	Telemetry     *telemetry.Series
	TelemetryFile string
	// Modified is the result file's time: the run's start where neither
	// SPEC's file nor corepin's reports say when it ran.
	Modified time.Time
}

// words are the texts of the judge's findings: corepin import spec has
// none of the flags they may advise.
var words = judge.Words{}

// TimeTolerance is how far SPEC's time of an iteration and corepin's may
// differ before the difference is said: corepin's set-up and the shell
// around each command are inside SPEC's time only.
const TimeTolerance = 0.01

// Run builds the imported run: one benchmark per benchmark and tuning,
// SPEC's iterations as its runs, each with the reports of its commands,
// the verdict corepin's evidence gives it, and its curves. files are what
// the results folder keeps beside run.json, by their names in it: the
// reports byte for byte, and each iteration's curves.
func (im *Import) Run() (run *results.Run, files map[string][]byte) {
	r := im.Result
	files = map[string][]byte{}
	byKey := map[Key]*Report{}
	for i := range im.Reports {
		byKey[im.Reports[i].Key] = &im.Reports[i]
	}
	joined := map[Key]bool{}
	run = &results.Run{
		Schema: results.Schema, State: results.StateFinished, Host: im.host(), Options: results.Options{Isolation: "process"},
		Benchmarks: []results.Benchmark{}, Warnings: []results.Warning{}, Source: &im.Source,
		Spec: &results.SpecRun{Suite: r.Suite, Lognum: r.Lognum, Runmode: r.Runmode, Size: r.Size, Metric: r.Metric,
			Invalid: r.Invalid, Errors: r.Errors, BaseMean: r.BaseMean, PeakMean: r.PeakMean, Evidence: im.EvidenceDir, Telemetry: im.TelemetryFile},
	}
	invalid := map[iterationKey]bool{} // the iterations corepin's reports make invalid
	for _, group := range groupIterations(r.Iterations) {
		b := im.benchmark(group)
		for _, it := range group {
			if it.Number < 0 {
				b.Warnings = append(b.Warnings, results.Warning{Run: results.NoRun, Kind: results.KindSpecVerdict,
					Text: "SPEC did not run it: " + verdictText(it)})
				continue
			}
			var cmds []*Report
			for k, rep := range byKey {
				if k.Benchmark == it.Benchmark && k.Tune == it.Tune && k.Iteration == it.Number {
					cmds = append(cmds, rep)
					joined[k] = true
				}
			}
			slices.SortFunc(cmds, func(a, b *Report) int { return compareKeys(a.Key, b.Key) })
			rec := im.record(it, len(b.Runs), cmds, files)
			if len(rec.Spec.InvalidByEvidence) > 0 {
				invalid[iterationKey{it.Name(), it.Number}] = true
			}
			b.Runs = append(b.Runs, rec)
		}
		run.Benchmarks = append(run.Benchmarks, b)
		run.Options.Runs = max(run.Options.Runs, b.PlannedRuns)
	}
	for _, rep := range im.Reports {
		if !joined[rep.Key] {
			run.Spec.Unjoined = append(run.Spec.Unjoined, rep.Name)
		}
	}
	run.Spec.Reports = len(im.Reports) - len(run.Spec.Unjoined)
	im.means(run.Spec, invalid)
	run.Started, run.Target = im.when(), im.target()
	finished := run.Started
	for _, b := range run.Benchmarks {
		for _, rec := range b.Runs {
			if end := rec.Started.Add(time.Duration(rec.WallS * float64(time.Second))); end.After(finished) {
				finished = end
			}
		}
	}
	run.Finished = &finished
	run.Options.Ladder = run.Target.Spec
	if len(im.Reports) > 0 {
		run.Options.Ladder = im.Reports[0].Scheduling.Ladder.Name
	}
	run.Warnings = im.runWarnings(run.Spec)
	words.Settle(run)
	return run, files
}

// iterationKey names an iteration: its benchmark and tuning, and number.
type iterationKey struct {
	name   string
	number int
}

// groupIterations splits the iterations by benchmark and tuning, in
// order.
func groupIterations(its []Iteration) [][]Iteration {
	var groups [][]Iteration
	for _, it := range its {
		if n := len(groups); n > 0 && groups[n-1][0].Name() == it.Name() {
			groups[n-1] = append(groups[n-1], it)
			continue
		}
		groups = append(groups, []Iteration{it})
	}
	return groups
}

// benchmark is a benchmark's record before its runs: its name, what SPEC
// calls it and its reference. A rate run's reference is copies × SPEC's,
// so that corepin's ratio, reference / median, is SPEC's rate.
func (im *Import) benchmark(group []Iteration) results.Benchmark {
	first := group[0]
	b := results.Benchmark{Name: first.Name(), Kind: results.KindSpec, PlannedRuns: len(group), Runs: []results.RunRecord{}}
	copies := ""
	if im.Result.Runmode == "rate" {
		copies = fmt.Sprintf(", %d copies", first.Copies)
	} else if first.Threads > 1 {
		copies = fmt.Sprintf(", %d threads", first.Threads)
	}
	b.Description = strings.TrimSpace(fmt.Sprintf("SPEC %s %s, %s tuning, %s %s%s", strings.ToUpper(im.Result.Suite), first.Benchmark, first.Tune, im.Result.Size, im.Result.Runmode, copies))
	for _, it := range group {
		if it.ReferenceS != nil && *it.ReferenceS > 0 {
			b.ReferenceS = *it.ReferenceS
			if im.Result.Runmode == "rate" && it.Copies > 0 {
				b.ReferenceS *= float64(it.Copies)
			}
			break
		}
	}
	return b
}

// record is one iteration as a run: SPEC's time and verdict, and what
// corepin's reports of its commands say.
func (im *Import) record(it Iteration, index int, cmds []*Report, files map[string][]byte) results.RunRecord {
	sp := &results.SpecIteration{Iteration: it.Number, Valid: it.Valid, Errors: it.Errors, Selected: it.Selected,
		ReportedS: it.ReportedS, ReferenceS: it.ReferenceS, Ratio: it.Ratio, Copies: it.Copies, Threads: it.Threads,
		Commands: []results.SpecCommand{}}
	rec := results.RunRecord{Index: index, Checks: []evidence.Outcome{}, Spec: sp}
	warn := func(kind, format string, a ...any) {
		rec.Warnings = append(rec.Warnings, results.Warning{Run: index, Kind: kind, Text: fmt.Sprintf(format, a...)})
	}
	spec := evidence.Outcome{What: "SPEC's verdict", Passed: it.Valid == "S", Detail: verdictText(it)}
	if spec.Passed {
		spec.Detail = ""
	}
	rec.Checks = append(rec.Checks, spec)
	var reasons []string
	if !spec.Passed {
		reasons = append(reasons, "SPEC: "+verdictText(it))
		warn(results.KindSpecVerdict, "SPEC's verdict: %s", verdictText(it))
	}
	if it.ReportedS != nil {
		rec.WallS = *it.ReportedS
	} else {
		reasons = append(reasons, "SPEC wrote no time")
	}
	var worst *evidence.Others
	perCopy := map[int]float64{}
	for _, c := range cmds {
		sc, v := im.command(c, files)
		sp.Commands = append(sp.Commands, sc)
		if sc.Invalid != "" {
			sp.InvalidByEvidence = append(sp.InvalidByEvidence, fmt.Sprintf("workload %d, copy %d: %s", c.Key.Workload, c.Key.Copy, sc.Invalid))
		}
		for _, f := range v.Findings {
			if f.Severity != judge.Invalid {
				warn(f.Kind, "workload %d, copy %d: %s", c.Key.Workload, c.Key.Copy, words.Text(f))
			}
		}
		s := c.Scheduling
		perCopy[c.Key.Copy] += s.Child.WallS
		rec.UserS += s.Child.UserS
		rec.SysS += s.Child.SysS
		rec.MaxRSSKB = max(rec.MaxRSSKB, s.Child.MaxRSSKB)
		if s.Sharing != nil && s.Sharing.Others != nil && (worst == nil || s.Sharing.Others.Share > worst.Share) {
			worst = s.Sharing.Others
			rec.Sharing = v.Sharing
		}
	}
	sp.Commands, sp.CommandsOmitted = boundCommands(sp.Commands)
	if n := len(sp.InvalidByEvidence); n > results.MaxSpecReasons {
		sp.InvalidByEvidence = append(sp.InvalidByEvidence[:results.MaxSpecReasons], fmt.Sprintf("and %d more commands", n-results.MaxSpecReasons))
	}
	if worst != nil {
		o, share := worst.S, worst.Share
		rec.OthersS, rec.OthersShare, rec.OthersSource = &o, &share, worst.Source
	}
	switch {
	case len(cmds) == 0 && im.EvidenceDir == "":
		sp.NotRecorded = "no folder of corepin's reports was given or found beside the result"
	case len(cmds) == 0:
		sp.NotRecorded = "no report of corepin's in " + im.EvidenceDir + " has this iteration"
	default:
		rec.Scheduling = cmds[0].Scheduling
		rec.Started = unixTime(cmds[0].Scheduling)
		im.compareTimes(sp, perCopy, warn)
	}
	if sp.NotRecorded != "" {
		warn(results.KindNotRecorded, "where it ran: not recorded (%s)", sp.NotRecorded)
		if it.RateStart != nil {
			rec.Started = time.Unix(0, int64(*it.RateStart*1e9))
		}
	}
	if len(sp.InvalidByEvidence) > 0 {
		why := strings.Join(sp.InvalidByEvidence, "; ")
		rec.Checks = append(rec.Checks, evidence.Outcome{What: "corepin's evidence", Detail: evidence.Clip(why, 160)})
		reasons = append(reasons, "invalid by corepin's evidence: "+why)
		warn(results.KindSpecEvidence, "invalid by corepin's evidence (SPEC's verdict: %s): %s", it.Valid, why)
	} else if len(cmds) > 0 {
		rec.Checks = append(rec.Checks, evidence.Outcome{What: "corepin's evidence", Passed: true})
	}
	rec.Valid = len(reasons) == 0
	rec.Error = strings.Join(reasons, "; ")
	im.curves(&rec, it, cmds, files)
	rec.Bound()
	return rec
}

// command is one command's report as an iteration keeps it, and corepin's
// verdict on it: the one run and exec use (judge.Report), and what makes
// it invalid.
func (im *Import) command(c *Report, files map[string][]byte) (results.SpecCommand, judge.Verdict) {
	s := c.Scheduling
	name := filepath.Join("reports", c.Name)
	files[name] = c.Data
	sc := results.SpecCommand{Workload: c.Key.Workload, Copy: c.Key.Copy, Report: name, CPUs: s.Readback.CPUs,
		Accepted: s.Accept.OK, AcceptedStep: s.Ladder.AcceptedStep, Ladder: s.Ladder.Name,
		WallS: s.Child.WallS, ExitCode: s.Child.ExitCode, Signal: s.Child.Signal, Refused: s.Refused}
	if s.Readback.CPUs.Len() > 0 {
		cpu := s.Readback.CPU
		sc.CPU = &cpu
	}
	if t := s.Child.Times; t != nil {
		sc.StartUnixNS, sc.EndUnixNS = &t.StartUnixNS, &t.EndUnixNS
	}
	if s.Watch != nil {
		sc.Migrations = s.Watch.Migrations
	}
	if s.Tree != nil {
		sc.Tree = s.Tree.Mechanism
	}
	if s.Coverage != nil {
		sc.Residency = s.Coverage.Residency
	}
	// The realtime throttle of this machine says nothing of the one that
	// ran SPEC: none is given.
	v := judge.Report(s, judge.Rules{Mode: s.Target.Mode})
	sc.Sharing = v.Sharing
	if s.Sharing != nil && s.Sharing.Others != nil {
		share := s.Sharing.Others.Share
		sc.OthersShare = &share
	}
	sc.Invalid = invalidity(s, v)
	return sc, v
}

// boundCommands keeps at most results.MaxSpecCommands of an iteration's
// commands in its record, those that make it invalid first, in order,
// and counts the rest.
func boundCommands(all []results.SpecCommand) ([]results.SpecCommand, int) {
	if len(all) <= results.MaxSpecCommands {
		return all, 0
	}
	kept := make([]results.SpecCommand, 0, results.MaxSpecCommands)
	for _, invalid := range []bool{true, false} {
		for _, c := range all {
			if (c.Invalid != "") == invalid && len(kept) < results.MaxSpecCommands {
				kept = append(kept, c)
			}
		}
	}
	return kept, len(all) - len(kept)
}

// invalidity says why a command's report makes its iteration invalid: a
// start corepin refused or could not make, an acceptance rule that failed
// or stopped holding, a shared target, work off the target, a watcher
// that cannot vouch for where it ran. "" when none.
func invalidity(s *evidence.Scheduling, v judge.Verdict) string {
	var shared string
	if f, ok := v.Invalid(); ok {
		shared = words.Text(f)
	}
	switch {
	case s.Refused != "":
		return "corepin refused to start it: " + s.Refused
	case s.ExecError != "":
		return "corepin could not start it: " + s.ExecError
	case !s.Accept.OK:
		return "the acceptance rule failed: " + s.Accept.Why
	case s.Broken != "":
		return "the acceptance rule stopped holding: " + s.Broken
	case shared != "":
		return shared
	case s.Coverage != nil && s.Coverage.Residency != nil && *s.Coverage.Residency < judge.ResidencyWarn:
		return fmt.Sprintf("the work ran off the target: %.1f%% of its CPU time on it (%s), %d migrations",
			100**s.Coverage.Residency, s.Coverage.ResidencySource, migrations(s))
	case (s.Coverage == nil || s.Coverage.Residency == nil) && s.Watch != nil && s.Watch.OnTargetRatio != nil && *s.Watch.OnTargetRatio < judge.ResidencyWarn:
		return fmt.Sprintf("the work ran off the target: %.1f%% of its run time on it (the watcher's samples), %d migrations",
			100**s.Watch.OnTargetRatio, migrations(s))
	case s.Watch != nil && s.Watch.KeepUp.Unvouched && s.Target.Mode != evidence.Soft:
		return fmt.Sprintf("the watcher missed %d of %d ticks: where it ran cannot be vouched for", s.Watch.KeepUp.Missed, s.Watch.KeepUp.Expected)
	}
	return ""
}

func migrations(s *evidence.Scheduling) int {
	if s.Watch == nil {
		return 0
	}
	return s.Watch.Migrations
}

// compareTimes sets corepin's time of the iteration, the longest copy's
// sum of its commands' wall times, and says where SPEC's differs from it
// by more than TimeTolerance.
func (im *Import) compareTimes(sp *results.SpecIteration, perCopy map[int]float64, warn func(string, string, ...any)) {
	longest := 0.0
	for _, s := range perCopy {
		longest = max(longest, s)
	}
	sp.CorepinS = &longest
	if sp.ReportedS == nil || *sp.ReportedS <= 0 {
		return
	}
	d := (*sp.ReportedS - longest) / *sp.ReportedS
	sp.TimeDifference = &d
	if math.Abs(d) > TimeTolerance {
		sp.TimeNote = fmt.Sprintf("SPEC's time %s and corepin's %s (the longest copy's sum of its commands' wall times) differ by %.1f%%",
			results.FormatSeconds(*sp.ReportedS), results.FormatSeconds(longest), 100*d)
		if d > 0 {
			sp.TimeNote += ": SPEC's includes the shell and corepin's own start and end around each command"
		}
		warn(results.KindSpecTime, "%s", sp.TimeNote)
	}
}

// curves are the iteration's per-CPU curves: cut from corepin telemetry
// around the whole run where it was given, else exec --telemetry's of
// copy 0's commands, each placed by its start; written beside run.json
// with t_s from the iteration's start, and summarised over its target.
func (im *Import) curves(rec *results.RunRecord, it Iteration, cmds []*Report, files map[string][]byte) {
	from, to, ok := window(it, cmds)
	if !ok {
		return
	}
	var got []telemetry.Sample
	var period float64
	switch {
	case im.Telemetry != nil:
		period = im.Telemetry.Period
		got = cut(im.Telemetry.Samples, im.Telemetry.Started.UnixNano(), from, to, period)
	default:
		for _, c := range cmds {
			tf := c.Scheduling.Telemetry
			if tf == nil || c.Key.Copy != 0 {
				continue
			}
			period = tf.PeriodS
			got = append(got, cut(im.Curves[filepath.Base(tf.File)], tf.StartUnixNS, from, to, period)...)
		}
	}
	if len(got) == 0 {
		return
	}
	slices.SortStableFunc(got, func(a, b telemetry.Sample) int { return cmpFloat(a.T, b.T) })
	series := &telemetry.Series{Samples: got, Period: period}
	var b strings.Builder
	series.WriteCSV(&b)
	rec.TelemetryCSV = filepath.Join("telemetry", fmt.Sprintf("%s-%d.csv", it.Name(), rec.Index))
	files[rec.TelemetryCSV] = []byte(b.String())
	var target cpuset.Set
	for _, c := range cmds {
		target = target.Union(c.Scheduling.Readback.CPUs)
	}
	if target.IsEmpty() {
		for _, s := range got {
			target = target.Union(cpuset.Of(s.CPU))
		}
	}
	rec.Telemetry = runner.SummarizeTelemetry(series, target)
}

// window is when the iteration ran, in ns since the epoch: its commands'
// first start and last end, else SPEC's rate start and end.
func window(it Iteration, cmds []*Report) (from, to int64, ok bool) {
	for _, c := range cmds {
		if t := c.Scheduling.Child.Times; t != nil {
			if !ok || t.StartUnixNS < from {
				from = t.StartUnixNS
			}
			to = max(to, t.EndUnixNS)
			ok = true
		}
	}
	if !ok && it.RateStart != nil && it.RateEnd != nil {
		return int64(*it.RateStart * 1e9), int64(*it.RateEnd * 1e9), true
	}
	return from, to, ok
}

// cut keeps the samples, which begin at origin (ns since the epoch), that
// describe the time from..to: a sample is the utilisation of the period
// that ends at it, so the one just after the end is kept. Their t_s
// becomes seconds since from.
func cut(all []telemetry.Sample, origin, from, to int64, period float64) []telemetry.Sample {
	var out []telemetry.Sample
	last := to + int64(period*1e9)
	for _, s := range all {
		at := origin + int64(s.T*1e9)
		if at <= from || at > last {
			continue
		}
		s.T = float64(at-from) / 1e9
		out = append(out, s)
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// unixTime is when a command started, or the zero time.
func unixTime(s *evidence.Scheduling) time.Time {
	if t := s.Child.Times; t != nil {
		return time.Unix(0, t.StartUnixNS)
	}
	return time.Time{}
}

// verdictText is SPEC's verdict in words: "VE (Output miscompare)".
func verdictText(it Iteration) string {
	v := it.Valid
	if v == "" {
		v = "no verdict"
	}
	if len(it.Errors) > 0 {
		v += " (" + strings.Join(it.Errors, "; ") + ")"
	}
	return v
}

// host is what SPEC's file says of the machine, and the corepin that
// imported it.
func (im *Import) host() results.Host {
	return results.Host{CPUModel: im.Result.CPUName, Kernel: im.Result.OS, GoVersion: runtime.Version(), Corepin: buildinfo.Read().Version}
}

// when is the run's start: its first command's, else the first rate
// iteration's, else the result file's time.
func (im *Import) when() time.Time {
	var first time.Time
	for _, rep := range im.Reports {
		if t := unixTime(rep.Scheduling); !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	for _, it := range im.Result.Iterations {
		if it.RateStart != nil {
			if t := time.Unix(0, int64(*it.RateStart*1e9)); first.IsZero() || t.Before(first) {
				first = t
			}
		}
	}
	if first.IsZero() {
		return im.Modified
	}
	return first
}

// target is where the copies were asked to run, from the reports.
func (im *Import) target() results.Target {
	t := results.Target{Spec: "not recorded", Mode: evidence.Exact, ExactCPU: -1,
		Why: "where SPEC's commands ran is not recorded: no report of corepin exec was joined"}
	copies := map[int]evidence.TargetReport{}
	for _, rep := range im.Reports {
		if _, ok := copies[rep.Key.Copy]; !ok {
			copies[rep.Key.Copy] = rep.Scheduling.Target
		}
	}
	if len(copies) == 0 {
		return t
	}
	var where []string
	order := slices.Sorted(maps.Keys(copies))
	for _, c := range order {
		tr := copies[c]
		t.SoftCPUs = t.SoftCPUs.Union(tr.CPUs)
		where = append(where, fmt.Sprintf("copy %d on CPUs %s", c, tr.CPUs))
	}
	first := copies[order[0]]
	t.Spec, t.Mode, t.ExactCPU = "bind", first.Mode, first.CPU
	t.Why = "SPEC's bind, as corepin exec was asked: " + strings.Join(where, ", ") + "; each iteration's commands hold their read-backs"
	return t
}

// runWarnings are the run's own: SPEC's verdict on the whole result, the
// means that differ, the reports no iteration has.
func (im *Import) runWarnings(sr *results.SpecRun) []results.Warning {
	w := []results.Warning{}
	add := func(kind, text string) { w = append(w, results.Warning{Run: results.NoRun, Kind: kind, Text: text}) }
	if sr.Invalid {
		msg := "SPEC marked the result invalid"
		if len(sr.Errors) > 0 {
			msg += ": " + evidence.Clip(strings.Join(sr.Errors, "; "), 512)
		}
		add(results.KindSpecVerdict, msg)
	}
	if sr.MeanNote != "" {
		add(results.KindSpecMean, sr.MeanNote)
	}
	if n := len(sr.Unjoined); n > 0 {
		add(results.KindSpecUnjoined, fmt.Sprintf("%d report(s) of corepin's in %s belong to no iteration of this result (another run's, or a tuning not in it), e.g. %s", n, im.EvidenceDir, sr.Unjoined[0]))
	}
	if len(im.Reports) == 0 {
		add(results.KindNotRecorded, "where it ran: not recorded (no report of corepin exec was joined)")
	}
	return w
}
