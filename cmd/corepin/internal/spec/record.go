package spec

import (
	"fmt"
	"math"
	"strings"
	"time"

	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// record is one iteration as a run: SPEC's time and verdict, and what
// corepin's reports of its commands say. Every warning of it names the
// iteration.
func (ir *importRun) record(it Iteration, index int, j *joined) (results.RunRecord, error) {
	rec := results.RunRecord{Index: index, Checks: []evidence.Outcome{}, Spec: specIteration(it)}
	w := warner{rec: &rec, prefix: fmt.Sprintf("iteration %d: ", it.Number)}
	reasons := specVerdict(&rec, it, w)
	if it.ReportedS != nil {
		rec.WallS = *it.ReportedS
	} else {
		reasons = append(reasons, "SPEC wrote no time")
	}
	perCopy, err := ir.commands(&rec, j, w)
	if err != nil {
		return rec, err
	}
	ir.whereItRan(&rec, it, j, perCopy, w)
	reasons = append(reasons, evidenceVerdict(&rec, it, j, w)...)
	rec.Valid = len(reasons) == 0
	rec.Error = strings.Join(reasons, "; ")
	if rec.Valid && rec.Spec.Evidence() == results.EvidenceValid {
		ir.vouched[iterationKey{it.Name(), it.Number}] = true
	}
	if err := ir.curves(&rec, it, j.reports, w); err != nil {
		return rec, err
	}
	rec.Bound()
	return rec, nil
}

// specIteration is SPEC's record of the iteration, before its commands.
func specIteration(it Iteration) *results.SpecIteration {
	return &results.SpecIteration{Iteration: it.Number, Valid: it.Valid, Errors: it.Errors, Selected: it.Selected,
		ReportedS: it.ReportedS, ReferenceS: it.ReferenceS, Ratio: it.Ratio, Copies: it.Copies, Threads: it.Threads,
		Commands: []results.SpecCommand{}}
}

// warner adds an iteration's warnings to its run, each saying which
// iteration it is of: a benchmark's warnings are said once for all its
// runs, without their numbers.
type warner struct {
	rec    *results.RunRecord
	prefix string
}

func (w warner) warn(kind, format string, a ...any) {
	w.add(kind, nil, fmt.Sprintf(format, a...))
}

func (w warner) add(kind string, value *float64, text string) {
	w.rec.Warnings = append(w.rec.Warnings, results.Warning{Run: w.rec.Index, Kind: kind, Value: value, Text: w.prefix + text})
}

// specVerdict is SPEC's verdict as the run's first check; where it is
// not S, it is why the run is not valid.
func specVerdict(rec *results.RunRecord, it Iteration, w warner) []string {
	check := evidence.Outcome{What: "SPEC's verdict", Passed: it.Valid == "S"}
	defer func() { rec.Checks = append(rec.Checks, check) }()
	if check.Passed {
		return nil
	}
	check.Detail = verdictText(it)
	w.warn(results.KindSpecVerdict, "SPEC's verdict: %s", verdictText(it))
	return []string{"SPEC: " + verdictText(it)}
}

// commands puts each command's report into the iteration's record: the
// report kept, its read-back and corepin's verdict on it, its resources,
// the largest share others took of its target; a command whose report
// could not be read is not recorded. It returns each copy's sum of its
// commands' wall times.
func (ir *importRun) commands(rec *results.RunRecord, j *joined, w warner) (map[int]float64, error) {
	sp := rec.Spec
	perCopy := map[int]float64{}
	var worst *evidence.Others
	for _, c := range j.reports {
		sc, v, err := ir.command(c)
		if err != nil {
			return nil, err
		}
		sp.Commands = append(sp.Commands, sc)
		where := fmt.Sprintf("workload %d, copy %d: ", c.Key.Workload, c.Key.Copy)
		if sc.Invalid != "" {
			sp.InvalidByEvidence = append(sp.InvalidByEvidence, where+sc.Invalid)
		}
		for _, f := range v.Findings {
			if f.Severity != judge.Invalid {
				w.add(f.Kind, f.Value, where+words.Text(f))
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
	for _, u := range j.unread {
		why := "its report cannot be read: " + u.why
		sp.Commands = append(sp.Commands, results.SpecCommand{Workload: u.key.Workload, Copy: u.key.Copy, NotRecorded: why})
		w.warn(results.KindNotRecorded, "workload %d, copy %d: where it ran: not recorded (%s)", u.key.Workload, u.key.Copy, why)
	}
	sp.Commands, sp.CommandsOmitted = boundCommands(sp.Commands)
	if n := len(sp.InvalidByEvidence); n > results.MaxSpecReasons {
		sp.InvalidByEvidence = append(sp.InvalidByEvidence[:results.MaxSpecReasons], fmt.Sprintf("and %d more commands", n-results.MaxSpecReasons))
	}
	if worst != nil {
		o, share := worst.S, worst.Share
		rec.OthersS, rec.OthersShare, rec.OthersSource = &o, &share, worst.Source
	}
	return perCopy, nil
}

// whereItRan gives the run its scheduling, start and corepin's time from
// its first command's report, or says why where it ran is not recorded.
// Where there is no folder of reports, or it is another run's, the run's
// own warning says so once, not each iteration.
func (ir *importRun) whereItRan(rec *results.RunRecord, it Iteration, j *joined, perCopy map[int]float64, w warner) {
	sp := rec.Spec
	switch {
	case j.notRecorded != "":
		sp.NotRecorded = j.notRecorded
	case len(j.reports) == 0:
		sp.NotRecorded = "no report of its commands could be read"
	default:
		rec.Scheduling = j.reports[0].Scheduling
		rec.Started = unixTime(j.reports[0].Scheduling)
		compareTimes(sp, perCopy, w)
		return
	}
	if ir.im.Reports != nil && ir.foreign == "" {
		w.warn(results.KindNotRecorded, "where it ran: not recorded (%s)", sp.NotRecorded)
	}
	if it.RateStart != nil {
		rec.Started = time.Unix(0, epochNS(*it.RateStart))
	}
}

// evidenceVerdict is corepin's evidence as the run's second check: what
// makes the iteration invalid whatever SPEC's verdict, with SPEC's kept
// beside it. An iteration not recorded has no such check.
func evidenceVerdict(rec *results.RunRecord, it Iteration, j *joined, w warner) []string {
	sp := rec.Spec
	if len(sp.InvalidByEvidence) == 0 {
		if len(j.reports) > 0 && sp.NotRecorded == "" {
			rec.Checks = append(rec.Checks, evidence.Outcome{What: "corepin's evidence", Passed: true})
		}
		return nil
	}
	why := strings.Join(sp.InvalidByEvidence, "; ")
	rec.Checks = append(rec.Checks, evidence.Outcome{What: "corepin's evidence", Detail: evidence.Clip(why, 160)})
	w.warn(results.KindSpecEvidence, "invalid by corepin's evidence (SPEC's verdict: %s): %s", it.Valid, why)
	return []string{"invalid by corepin's evidence: " + why}
}

// compareTimes sets corepin's time of the iteration, the longest copy's
// sum of its commands' wall times, and says where SPEC's differs from it
// by more than TimeTolerance.
func compareTimes(sp *results.SpecIteration, perCopy map[int]float64, w warner) {
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
		w.warn(results.KindSpecTime, "%s", sp.TimeNote)
	}
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
