package judge

import (
	"math"
	"strings"
	"testing"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// bench is a benchmark of a warm-up and runs of times, summarised and
// judged.
func bench(name string, ref float64, times ...float64) results.Benchmark {
	b := results.Benchmark{Name: name, Kind: "builtin", ReferenceS: ref}
	b.Runs = append(b.Runs, results.RunRecord{Index: 0, Warmup: true, WallS: 9, Valid: true})
	for i, t := range times {
		b.Runs = append(b.Runs, results.RunRecord{Index: i + 1, WallS: t, Valid: true})
	}
	settle(&b)
	return b
}

// TestBenchmark judges benchmarks whose statistics and runs' evidence
// each call for findings, and holds what it says, whole, in a golden
// file.
func TestBenchmark(t *testing.T) {
	low, lo, hi := 0.9, 1000.0, 2000.0
	sched := bench("sched", 0, 1, 1, 1)
	rep := &evidence.Scheduling{Watch: &evidence.Watch{OnTargetRatio: &low, Errors: []string{"lost a thread"}}}
	rep.Ladder = evidence.LadderResult{Name: "geekbench", AcceptedStep: 4, Steps: []evidence.StepResult{
		{Step: 1, Skipped: "realtime"}, {Step: 2}, {Step: 3}, {Step: 4, Accepted: true}}}
	rep.Restore = evidence.RestoreResult{Done: true, OK: false}
	rep.Start = evidence.StartFork
	sched.Runs[1].Scheduling = rep
	sched.Runs[1].Telemetry = results.TelemetryStats{FreqMinMHz: &lo, FreqMaxMHz: &hi, Notes: []string{"t=0.1s: a gap of 0.3 s"}}
	sched.Runs[1].Warnings = []results.Warning{{Run: results.NoRun, Kind: results.KindShared, Text: "others took 5.0% of …", Value: &low}}
	sched.Runs[2].Valid = false
	settle(&sched)
	unfinished := bench("unfinished", 0, 1, 1)
	unfinished.PlannedRuns = 6
	settle(&unfinished)
	notATime := bench("not a time", 1, 1, math.Inf(1), 1.01, 0.99)
	cases := []results.Benchmark{
		bench("steady", 2, 1.00, 1.02, 0.98, 1.01, 0.99, 1.00, 1.03, 0.97, 1.00, 1.00),
		bench("noisy", 0, 1, 2, 1, 2, 1, 2),
		bench("cold", 0, 1.5, 1, 1, 1, 1.01, 0.99),
		bench("blip", 0, 1, 1.01, 0.99, 1, 1.02, 0.98, 5),
		sched, unfinished, notATime,
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString(c.Name + "\n")
		for _, w := range c.Warnings {
			b.WriteString("\t" + w.Kind + " " + w.Severity + ": " + w.String() + "\n")
		}
	}
	golden(t, "benchmark.golden", b.String())
}

// A run whose time is not a time is said, and so is the invalid
// benchmark it makes, never as a failed check.
func TestNotATimeIsSaid(t *testing.T) {
	for _, odd := range []float64{1e300, -1, math.NaN(), 1e-300} {
		b := bench("fib", 1, 1, odd, 1.01, 0.99)
		var texts []string
		for _, w := range b.Warnings {
			texts = append(texts, w.Text)
		}
		all := strings.Join(texts, "\n")
		if !strings.Contains(all, "is not a time") || strings.Contains(all, "failed its output check") {
			t.Errorf("a run of %g s: warnings %v", odd, texts)
		}
	}
}

// The terminal says each kind of warning once for the whole run, with the
// range of its figures and the runs it concerns.
func TestSummaryWarningsOneLinePerKind(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	r := &results.Run{Benchmarks: []results.Benchmark{
		{Name: "fib", CompletedRuns: 3, Warnings: []results.Warning{
			{Run: 1, Kind: results.KindOwnWait, Text: "waited 3%", Value: v(0.031)},
			{Run: 2, Kind: results.KindOwnWait, Text: "waited 4%", Value: v(0.04)},
			{Run: results.NoRun, Text: "the first run was slow"},
			{Run: results.NoRun, Kind: results.KindOutliers, Text: "1 outlier run(s) by median absolute deviation: [3]"}}},
		{Name: "sha", CompletedRuns: 3, Warnings: []results.Warning{{Run: results.NoRun, Kind: results.KindFirstRun, Text: "the first run took 20% longer"}}},
		{Name: "json", CompletedRuns: 3, Warnings: []results.Warning{{Run: 1, Kind: results.KindOwnWait, Text: "waited 9%", Value: v(0.092)}}},
	}, Warnings: []results.Warning{{Run: results.NoRun, Kind: results.KindMachine, Text: "machine not tuned"}}}
	got := r.SummaryWarnings(testWords.Phrases())
	want := []string{
		"fib, json: the work's own threads waited 3.1–9.2% of their time for the target CPU, behind each other (what else ran there took too little to cause it) in 3 of 6 runs",
		"the run times varied: outlier runs in fib; a slow first run in sha; the page has each run",
		"fib: the first run was slow",
		"machine not tuned",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Slowed runs say why run times varied: where a spread is said too,
// their figures are in the spread's line.
func TestSummaryWarningsSpeedInTheSpreadLine(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	r := &results.Run{Benchmarks: []results.Benchmark{
		{Name: "fib", CompletedRuns: 2, Warnings: []results.Warning{
			{Run: results.NoRun, Kind: results.KindSpread, Text: "spread 9%", Value: v(0.09)},
			{Run: 1, Kind: results.KindSpeed, Text: "slowed", Value: v(0.73)}}},
		{Name: "json", CompletedRuns: 2, Warnings: []results.Warning{{Run: 2, Kind: results.KindSpeed, Text: "slowed", Value: v(0.9)}}},
	}}
	got := r.SummaryWarnings(testWords.Phrases())
	want := "fib: spread 9.0% (coefficient of variation) is above 5%: rerun with more runs on a quieter machine; 2 of all 4 runs were slowed, at 73–90% of their best run's speed (run.json says by what)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("summary:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}

	// A third benchmark the witness found at full speed: the count names
	// the benchmarks it is over.
	r.Benchmarks = append(r.Benchmarks, results.Benchmark{Name: "sha", CompletedRuns: 3})
	got = r.SummaryWarnings(testWords.Phrases())
	want = "fib: spread 9.0% (coefficient of variation) is above 5%: rerun with more runs on a quieter machine; 2 of the 4 runs of fib, json were slowed, at 73–90% of their best run's speed (run.json says by what)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("summary with a benchmark at full speed:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// Without a spread, outlier runs are said in the slowed runs' line: both
// say the times varied, and the slowed runs' warnings say why.
func TestSummaryWarningsOutliersInTheSpeedLine(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	r := &results.Run{Benchmarks: []results.Benchmark{
		{Name: "fib", CompletedRuns: 2, Warnings: []results.Warning{{Run: 1, Kind: results.KindSpeed, Text: "slowed", Value: v(0.73)}}},
		{Name: "json", CompletedRuns: 2, Warnings: []results.Warning{
			{Run: 2, Kind: results.KindSpeed, Text: "slowed", Value: v(0.9)},
			{Run: results.NoRun, Kind: results.KindOutliers, Text: "1 outlier run(s) by median absolute deviation: [2]"}}},
	}, Warnings: []results.Warning{{Run: results.NoRun, Kind: results.KindMachine, Text: "machine not tuned"}}}
	got := r.SummaryWarnings(testWords.Phrases())
	want := []string{
		"every benchmark: runs were slowed to 73–90% of their benchmark's best run's speed (by what: each run's warning in run.json and on the page) in 2 of 4 runs; the run times varied: outlier runs in json",
		"machine not tuned",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A run its writer did not finish is judged anew as it is read; a
// finished one keeps what it was written with.
func TestUnfinishedIsJudgedAnew(t *testing.T) {
	for _, state := range []string{results.StateCrashed, results.StateRunning, results.StateFinished} {
		b := results.Benchmark{Name: "fib", PlannedRuns: 6, Warnings: []results.Warning{}, Runs: []results.RunRecord{{Index: 0, WallS: 1, Valid: true}}}
		r := &results.Run{State: state, Benchmarks: []results.Benchmark{b}}
		r.Settle()
		testWords.Unfinished(r)
		said := strings.Contains(strings.Join(results.WarningTexts(r.Benchmarks[0].Warnings), "\n"), "1 of 6 planned runs completed")
		if said != (state != results.StateFinished) {
			t.Errorf("%s: warnings %v", state, r.Benchmarks[0].Warnings)
		}
	}
}

// The benchmark's warning names the run that made it invalid and why,
// not every reason a run can fail; an imported SPEC iteration by its
// number.
func TestInvalidWarningSaysWhy(t *testing.T) {
	b := results.Benchmark{Name: "505.mcf_r.base", PlannedRuns: 2, Runs: []results.RunRecord{
		{Index: 0, WallS: 1, Valid: true},
		{Index: 1, WallS: 1, Error: "invalid by corepin's evidence: workload 0, copy 0: the target CPU was shared", Spec: &results.SpecIteration{Iteration: 4}},
	}}
	b.Summarize()
	Words{}.Benchmark(&b)
	want := "iteration 4: invalid by corepin's evidence: workload 0, copy 0: the target CPU was shared: the benchmark is invalid"
	if ws := results.WarningTexts(b.Warnings); len(ws) == 0 || ws[0] != want {
		t.Errorf("warnings %q, want %q first", ws, want)
	}
}
