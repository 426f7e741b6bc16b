package spec

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/telemetry"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// Import is a SPEC result and what is joined with it: corepin exec's
// reports of its commands, what specinvoke's files say of them, and
// corepin's telemetry around the run.
type Import struct {
	Result *Result
	Source results.Source
	// Reports are corepin exec's reports of the run's commands; nil for
	// none.
	Reports *Reports
	// Invocations are the commands specinvoke last ran in the run
	// folders beside the result, whose times bound their reports'; nil
	// for none.
	Invocations *Invocations
	// Telemetry is corepin telemetry's series around the whole runcpu,
	// from TelemetryFile; nil for none.
	Telemetry     *telemetry.Series
	TelemetryFile string
	// Modified is the result file's time: the run's start where neither
	// SPEC's file nor corepin's reports say when it ran.
	Modified time.Time
}

// TimeTolerance is how far SPEC's time of an iteration and corepin's may
// differ before the difference is said: corepin's set-up and the shell
// around each command are inside SPEC's time only.
const TimeTolerance = 0.01

// timeSlack is how far outside SPEC's times of an iteration a command
// corepin reports may seem to run and still be the iteration's: SPEC
// writes its times to the microsecond or so, and corepin's clock of the
// command lies inside specinvoke's.
const timeSlack = int64(time.Millisecond)

// Keep is where the import puts a file the results folder keeps beside
// run.json, by its name in it: a report byte for byte, an iteration's
// curves.
type Keep func(name string, data []byte) error

// Run builds the imported run: one benchmark per benchmark and tuning,
// SPEC's iterations as its runs, each joined with the reports of its
// commands, with the verdict corepin's evidence gives it and its curves.
// Reports are read one iteration at a time and handed to keep; a
// cancelled ctx ends the import.
func (im *Import) Run(ctx context.Context, keep Keep) (*results.Run, error) {
	ir := newImportRun(im, keep)
	for _, group := range groupIterations(im.Result.Iterations) {
		b := im.benchmark(group)
		for _, it := range group {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if it.Number < 0 {
				b.Warnings = append(b.Warnings, results.Warning{Run: results.NoRun, Kind: results.KindSpecVerdict,
					Text: "SPEC did not run it: " + verdictText(it)})
				continue
			}
			j, err := ir.join(ctx, it)
			if err != nil {
				return nil, err
			}
			rec, err := ir.record(it, len(b.Runs), j)
			if err != nil {
				return nil, err
			}
			b.Runs = append(b.Runs, rec)
		}
		ir.run.Benchmarks = append(ir.run.Benchmarks, b)
		ir.run.Options.Runs = max(ir.run.Options.Runs, b.PlannedRuns)
	}
	return ir.finish(), nil
}

// importRun is an import under way: the run being built and what its
// iterations' reports have said so far.
type importRun struct {
	im   *Import
	keep Keep
	run  *results.Run
	// joined are the reports joined with an iteration, unread those of an
	// iteration that could not be read, and refused those an iteration
	// could not take, by name, each with why.
	joined, unread map[Key]bool
	refused        map[string]string
	// The first command's start, each copy's target and the ladder, as
	// the joined reports say.
	first  time.Time
	copies map[int]evidence.TargetReport
	ladder string
	// vouched are the iterations SPEC and corepin's evidence both hold
	// valid: those the evidence mean is of.
	vouched map[iterationKey]bool
	// foreign says why the folder's reports are none of this result's:
	// its name is another run's (corepin.LOGNUM); "" when it may be.
	foreign string
}

func newImportRun(im *Import, keep Keep) *importRun {
	r := im.Result
	sr := &results.SpecRun{Suite: r.Suite, Lognum: r.Lognum, Runmode: r.Runmode, Size: r.Size, Metric: r.Metric,
		Invalid: r.Invalid, Errors: r.Errors, BaseMean: r.BaseMean, PeakMean: r.PeakMean, Telemetry: im.TelemetryFile}
	if im.Reports != nil {
		sr.Evidence = im.Reports.Dir
		if abs, err := filepath.Abs(im.Reports.Dir); err == nil {
			sr.Evidence = abs
		}
	}
	run := &results.Run{Schema: results.Schema, State: results.StateFinished, Host: im.host(), Options: results.Options{Isolation: "process"},
		Benchmarks: []results.Benchmark{}, Warnings: []results.Warning{}, Source: &im.Source, Spec: sr}
	ir := &importRun{im: im, keep: keep, run: run, joined: map[Key]bool{}, unread: map[Key]bool{}, refused: map[string]string{},
		copies: map[int]evidence.TargetReport{}, vouched: map[iterationKey]bool{}}
	if reps := im.Reports; reps != nil && reps.Lognum != "" && !sameRun(reps.Lognum, r.Lognum) {
		ir.foreign = fmt.Sprintf("the folder is %s%s, run %s's, not this result's run %s", ReportDir, reps.Lognum, reps.Lognum, r.Lognum)
	}
	return ir
}

// joined is an iteration's commands as their reports say: those read, and
// those whose report could not be read, each with why; notRecorded says
// why no report is joined with the iteration at all.
type joined struct {
	reports     []*Report
	unread      []unreadReport
	notRecorded string
}

// unreadReport is a command whose report could not be read.
type unreadReport struct {
	key Key
	why string
}

// join reads the reports of an iteration's commands and holds them to
// it. A report is the iteration's only where its folder is this run's
// (corepin.LOGNUM) and its command ran within SPEC's times of the
// iteration (a rate iteration's start and end, or specinvoke's of the
// command where its run folder still has them): otherwise none of the
// iteration's reports is joined, and where it ran is not recorded.
func (ir *importRun) join(ctx context.Context, it Iteration) (*joined, error) {
	reps := ir.im.Reports
	j := &joined{}
	var keys []Key
	if reps != nil {
		keys = reps.commands(it)
	}
	switch {
	case reps == nil:
		j.notRecorded = "no folder of corepin's reports was given or found beside the result"
		return j, nil
	case ir.foreign != "":
		j.notRecorded = "the reports in " + reps.Dir + " are not this result's: " + ir.foreign
		return j, nil
	case len(keys) == 0:
		j.notRecorded = "no report of corepin's in " + reps.Dir + " has this iteration"
		return j, nil
	}
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep, err := reps.Read(k)
		if err != nil {
			j.unread = append(j.unread, unreadReport{k, err.Error()})
			continue
		}
		j.reports = append(j.reports, rep)
	}
	if why := ir.outside(it, j.reports); why != "" {
		j.notRecorded, j.reports, j.unread = why, nil, nil
		ir.refuse(keys, "another run's, by their commands' times (outside SPEC's of their iterations) or their curves' folder")
		return j, nil
	}
	for _, rep := range j.reports {
		ir.joined[rep.Key] = true
	}
	for _, u := range j.unread {
		ir.unread[u.key] = true
	}
	return j, nil
}

// refuse marks an iteration's reports as not joined, for why.
func (ir *importRun) refuse(keys []Key, why string) {
	for _, k := range keys {
		ir.refused[ir.im.Reports.Name(k)] = why
	}
}

// outside says why a report cannot be the iteration's: its command ran
// outside SPEC's times of the iteration, or its curves went to another
// run's folder; "" when every report may be.
func (ir *importRun) outside(it Iteration, reps []*Report) string {
	for _, rep := range reps {
		s := rep.Scheduling
		where := fmt.Sprintf("workload %d, copy %d", rep.Key.Workload, rep.Key.Copy)
		if tf := s.Telemetry; tf != nil {
			folder := filepath.Base(filepath.Dir(tf.File))
			if l, ok := strings.CutPrefix(folder, ReportDir); ok && !sameRun(l, ir.im.Result.Lognum) {
				return fmt.Sprintf("%s wrote its curves into %s: another run's report", where, folder)
			}
		}
		t := s.Child.Times
		if t == nil {
			continue
		}
		from, to, what, ok := ir.window(it, rep)
		if ok && (t.StartUnixNS < from-timeSlack || t.EndUnixNS > to+timeSlack) {
			return fmt.Sprintf("%s ran from %s to %s, outside %s (%s to %s): another run's report", where,
				clock(t.StartUnixNS), clock(t.EndUnixNS), what, clock(from), clock(to))
		}
	}
	return ""
}

// window is when SPEC says a command of the iteration ran, in ns since
// the epoch: specinvoke's start and end of the command where its run
// folder still has them, else the rate iteration's first start and last
// end; false where SPEC says neither.
func (ir *importRun) window(it Iteration, rep *Report) (from, to int64, what string, ok bool) {
	if from, to, ok := ir.im.Invocations.window(ir.im.Reports.Dir, rep.Name); ok {
		return from, to, "specinvoke's times of the command (speccmds.out)", true
	}
	if it.RateStart != nil && it.RateEnd != nil {
		return epochNS(*it.RateStart), epochNS(*it.RateEnd), "SPEC's rate start and end of the iteration", true
	}
	return 0, 0, "", false
}

// epochNS is seconds since the epoch as SPEC writes them, in ns.
func epochNS(s float64) int64 { return int64(math.Round(s * 1e9)) }

// clock is a time in ns since the epoch, in UTC to the millisecond.
func clock(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.000")
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
		copies = ", " + plural(first.Copies, "copy", "copies")
	} else if first.Threads > 1 {
		copies = ", " + plural(first.Threads, "thread", "threads")
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

// plural is a count with its noun: "1 copy", "2 copies".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// finish settles the run once every iteration is in: its start, target
// and ladder as the joined reports say, the reports not joined, the
// means, and its warnings.
func (ir *importRun) finish() *results.Run {
	run, im := ir.run, ir.im
	notJoined := ir.unjoined()
	run.Spec.Reports = len(ir.joined)
	im.means(run.Spec, ir.vouched, len(ir.joined) > 0)
	run.Started, run.Target = ir.when(), ir.target()
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
	if ir.ladder != "" {
		run.Options.Ladder = ir.ladder
	}
	run.Warnings = ir.runWarnings(notJoined)
	words.Settle(run)
	return run
}
