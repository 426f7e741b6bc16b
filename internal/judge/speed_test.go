package judge

import (
	"strings"
	"testing"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// timed is a counted run of wall seconds that used cpu seconds of CPU
// time, whose probe after it read probe steps per second.
func timed(index int, wall, cpu, probe float64) results.RunRecord {
	on := 1.0
	zero := 0.0
	return results.RunRecord{Index: index, WallS: wall, UserS: cpu, Valid: true, OthersS: &zero, StealS: &zero,
		ProbeAfter: &results.SpeedProbe{Rate: probe, OnCPU: &on}}
}

// steady is a benchmark of six runs within 2% of each other, each of
// whose probes read rates[i].
func steady(rates ...float64) results.Benchmark {
	b := results.Benchmark{Name: "loop", PlannedRuns: len(rates), SpeedBestRate: 1000}
	for i, r := range rates {
		w := 1 + 0.004*float64(i)
		b.Runs = append(b.Runs, timed(i, w, w, r))
	}
	return b
}

func speedWarnings(b results.Benchmark) []results.Warning {
	var out []results.Warning
	for _, w := range b.Warnings {
		if w.Kind == results.KindSpeed {
			out = append(out, w)
		}
	}
	return out
}

// Runs within the benchmark's own spread are never called slowed,
// whatever the probe read after them: it read the core at another moment.
func TestSteadyRunsAreNeverSlowed(t *testing.T) {
	b := steady(1000, 410, 450, 1000, 300, 500)
	settle(&b)
	if w := speedWarnings(b); len(w) != 0 {
		t.Errorf("steady runs called slowed: %v", results.WarningTexts(w))
	}
	if got := *b.Runs[4].SpeedAfter; got != 0.3 {
		t.Errorf("run 4's probe reading %v, want 0.3 of the best", got)
	}
	if got := *b.Runs[0].Speed; got != 1 {
		t.Errorf("the best run's own speed %v, want 1", got)
	}
}

// A run held to a third of its CPU by a bandwidth limit is called slowed
// at its own speed, by the limit, whatever the probe read.
func TestThrottledRunIsSlowedByTheLimit(t *testing.T) {
	b := steady(1000, 1000, 1000, 1000, 1000, 1000)
	slow := timed(3, 3, 1.01, 1000)
	th := 1.95
	slow.ThrottledS, slow.ThrottledCgroup = &th, "/sys/fs/cgroup/cpu/limit"
	b.Runs[3] = slow
	settle(&b)
	w := speedWarnings(b)
	if len(w) != 1 || w[0].Run != 3 || w[0].Value == nil || *w[0].Value > 0.34 || *w[0].Value < 0.33 {
		t.Fatalf("speed warnings %+v, want one on run 3 at a third", w)
	}
	for _, want := range []string{"0.33 of its best run's speed", "a CPU bandwidth limit held its cgroup back for 1.950 s (/sys/fs/cgroup/cpu/limit, cpu.stat)"} {
		if !strings.Contains(w[0].Text, want) {
			t.Errorf("%q lacks %q", w[0].Text, want)
		}
	}
}

// A run whose target others took is slowed by them, named.
func TestRunSlowedByOthersNamesThem(t *testing.T) {
	b := steady(1000, 1000, 1000, 1000, 1000, 1000)
	slow := timed(5, 2, 1.02, 1000)
	others := 0.97
	slow.OthersS = &others
	slow.Scheduling = &evidence.Scheduling{Sharing: &evidence.Sharing{Preemptors: []evidence.Preemptor{{PID: 42, Comm: "spin", OnCPUS: 0.96}}}}
	b.Runs[5] = slow
	settle(&b)
	w := speedWarnings(b)
	if len(w) != 1 || !strings.Contains(w[0].Text, "others took 970.0 ms of the target during it (spin (42) 960.0 ms)") {
		t.Fatalf("speed warnings %v", results.WarningTexts(w))
	}
}

// A run whose CPU time grew is slowed by the core only where the probe
// after it agrees; where the probe read the core at full speed, the work
// may have done more, and nothing is claimed.
func TestCoreSlowedOnlyWhereTheProbeAgrees(t *testing.T) {
	b := steady(1000, 1000, 1000, 1000, 1000, 1000)
	b.Runs[2] = timed(2, 1.5, 1.5, 550)
	settle(&b)
	w := speedWarnings(b)
	if len(w) != 1 || !strings.Contains(w[0].Text, "it needed 1.50× its best run's CPU time, and the speed probe after it read the core at 0.55 of its best") {
		t.Fatalf("speed warnings %v", results.WarningTexts(w))
	}
	b.Runs[2] = timed(2, 1.5, 1.5, 990)
	settle(&b)
	if w := speedWarnings(b); len(w) != 0 {
		t.Errorf("a run whose probe read full speed called slowed: %v", results.WarningTexts(w))
	}
}

// Time off the CPU that nothing measured accounts for (the work slept,
// or a limit corepin cannot read) is no claim.
func TestUnexplainedWaitIsNoClaim(t *testing.T) {
	b := steady(1000, 1000, 1000, 1000, 1000, 1000)
	b.Runs[1] = timed(1, 2, 1.0, 500)
	settle(&b)
	if w := speedWarnings(b); len(w) != 0 {
		t.Errorf("an unexplained wait called slowed: %v", results.WarningTexts(w))
	}
	if s := *b.Runs[1].Speed; s != 0.5 {
		t.Errorf("own speed %v, want 0.5", s)
	}
}

// An older corepin's run.json, with probes before and after and nothing
// measured during the run, has its runs judged by their own times: probes
// alone call nothing slowed.
func TestOlderProbesAloneClaimNothing(t *testing.T) {
	b := results.Benchmark{Name: "loop", PlannedRuns: 6}
	for i := range 6 {
		b.Runs = append(b.Runs, results.RunRecord{Index: i, WallS: 1 + 0.01*float64(i), UserS: 1, Valid: true,
			ProbeBefore: &results.SpeedProbe{Rate: 400}, ProbeAfter: &results.SpeedProbe{Rate: 1000}})
	}
	b.Runs[5].WallS = 3
	settle(&b)
	if w := speedWarnings(b); len(w) != 0 {
		t.Errorf("probes alone called runs slowed: %v", results.WarningTexts(w))
	}
}

func TestFirstRunAndOutliersSayWhichWereSlowed(t *testing.T) {
	b := steady(1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000)
	b.Runs[0] = timed(0, 1.5, 1.5, 600)
	b.Runs[7] = timed(7, 2, 2, 500)
	settle(&b)
	var first, outliers string
	for _, w := range b.Warnings {
		switch w.Kind {
		case results.KindFirstRun:
			first = w.Text
		case results.KindOutliers:
			outliers = w.Text
		}
	}
	if !strings.Contains(first, "and was slowed: it needed 1.49×") {
		t.Errorf("first-run warning %q does not say it was slowed", first)
	}
	if !strings.Contains(outliers, "each was slowed") {
		t.Errorf("outlier warning %q does not say they were slowed", outliers)
	}
	b.Runs[0] = timed(0, 1.5, 1.5, 1000)
	settle(&b)
	for _, w := range b.Warnings {
		if w.Kind == results.KindFirstRun && !strings.Contains(w.Text, "likely not warm") {
			t.Errorf("first-run warning %q", w.Text)
		}
	}
}

// The gate judges a run against the runs so far: with a warm-up alone,
// against it.
func TestSpeedReferenceOfAWarmUpAlone(t *testing.T) {
	warm := timed(0, 1, 1, 1000)
	warm.Warmup = true
	b := results.Benchmark{Name: "loop", Runs: []results.RunRecord{warm}, SpeedBestRate: 1000}
	ref := b.SpeedReference()
	if best, _ := ref.Best(); best.WallS != 1 || ref.MedianS != 1 {
		t.Fatalf("reference best %v, median %v: want the warm-up's 1 s", best.WallS, ref.MedianS)
	}
	run := timed(1, 3, 1, 1000)
	th := 2.0
	run.ThrottledS = &th
	testWords.JudgeSpeed(&run, ref)
	if !run.Slowed() {
		t.Error("a throttled run at a third of the warm-up's speed is not slowed")
	}
}

func TestSpeedWarningsAreOneLineInTheTerminal(t *testing.T) {
	mk := func(name string) results.Benchmark {
		b := steady(1000, 1000, 1000)
		b.Name = name
		b.Runs[1] = timed(1, 2, 2, 500)
		settle(&b)
		return b
	}
	r := &results.Run{Benchmarks: []results.Benchmark{mk("a"), mk("b")}}
	var lines []string
	for _, l := range r.SummaryWarnings(testWords.Phrases()) {
		if strings.Contains(l, "slowed") {
			lines = append(lines, l)
		}
	}
	want := "every benchmark: spread 43% (coefficient of variation) is above 5%: rerun with more runs on a quieter machine; 2 of all 6 runs were slowed, at 50% of their best run's speed (run.json says by what); outlier runs in a, b"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("terminal lines %q, want one: %q", lines, want)
	}
}

// The frequency stands beside the core's speed only where cpufreq gives
// it.
func TestSpeedTextNamesCpufreqOnly(t *testing.T) {
	lo, hi, mean := 1200.0, 2400.0, 1800.0
	b := steady(1000, 1000, 1000, 1000, 1000, 1000)
	b.Runs[2] = timed(2, 2, 2, 500)
	b.Runs[2].Telemetry = results.TelemetryStats{FreqSource: "scaling_cur_freq", FreqMinMHz: &lo, FreqMaxMHz: &hi, FreqMeanMHz: &mean}
	settle(&b)
	if w := speedWarnings(b); len(w) != 1 || !strings.Contains(w[0].Text, "frequency 1200–2400 MHz, mean 1800 (scaling_cur_freq)") {
		t.Errorf("warnings %v lack the cpufreq figures", results.WarningTexts(w))
	}
	b.Runs[2].Telemetry.FreqSource = "proc_cpuinfo"
	settle(&b)
	if w := speedWarnings(b); len(w) != 1 || strings.Contains(w[0].Text, "MHz") {
		t.Errorf("warnings %v give /proc/cpuinfo's nominal clock as a figure", results.WarningTexts(w))
	}
}

// A benchmark's dropped runs are said by why they were dropped: the
// speed gate's, which completed, and those whose target was shared,
// which were invalid; the terminal says each kind in one line.
func TestDroppedRunsSaidByCause(t *testing.T) {
	slow := timed(1, 2, 2, 400)
	slow.Dropped = "slowed"
	shared := results.RunRecord{Index: 2, WallS: 1.5, Error: "the target CPU was shared: others took 40%", Dropped: "the target CPU was shared: others took 40%; dropped and run again (1 of at most 2)"}
	r := &results.Run{Benchmarks: []results.Benchmark{{Name: "loop", PlannedRuns: 2,
		Runs:        []results.RunRecord{timed(1, 1, 1, 1000), timed(2, 1, 1, 1000)},
		DroppedRuns: []results.RunRecord{slow, shared, shared}}}}
	testWords.Settle(r)
	b := r.Benchmarks[0]
	if !b.Valid || b.N != 2 {
		t.Fatalf("valid %v, n %d: the dropped runs must not count", b.Valid, b.N)
	}
	kinds := map[string]string{}
	for _, w := range b.Warnings {
		if w.Kind == results.KindSpeedGate || w.Kind == results.KindSharedRerun {
			kinds[w.Kind] = w.Text
		}
	}
	if !strings.Contains(kinds[results.KindSpeedGate], "the statistics are of runs [0 1]; 1 run(s) called slowed were dropped by --speed-gate") || !strings.Contains(kinds[results.KindSharedRerun], "2 run(s) whose target CPU was shared were dropped and run again") {
		t.Errorf("the dropped runs' warnings: %q", kinds)
	}
	lines := strings.Join(r.SummaryWarnings(testWords.Phrases()), "\n")
	for _, want := range []string{"loop: 1 run(s) per benchmark called slowed were dropped by --speed-gate and re-run", "loop: 2 run(s) per benchmark whose target CPU was shared were dropped and run again"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the terminal's lines do not say %q:\n%s", want, lines)
		}
	}
}

// When every run was dropped, the warning says that no run is in the
// statistics, not "the statistics are of runs []".
func TestDroppedRunsWithNoneLeft(t *testing.T) {
	shared := results.RunRecord{Index: 0, WallS: 1.5, Error: "the target CPU was shared: others took 40%", Dropped: "the target CPU was shared: others took 40%; dropped and run again (1 of at most 2)"}
	r := &results.Run{Benchmarks: []results.Benchmark{{Name: "loop", PlannedRuns: 1, Runs: []results.RunRecord{}, DroppedRuns: []results.RunRecord{shared, shared}}}}
	testWords.Settle(r)
	said := false
	for _, w := range r.Benchmarks[0].Warnings {
		if w.Kind == results.KindSharedRerun {
			said = true
			if strings.Contains(w.Text, "runs []") || !strings.HasPrefix(w.Text, "no run is in the statistics; ") {
				t.Errorf("said %q", w.Text)
			}
		}
	}
	if !said {
		t.Error("the dropped runs are not said")
	}
}

// testWords are the texts as corepin run words them.
var testWords = Words{Flags: runFlags}

// settle summarises b and judges it, as a run's end does.
func settle(b *results.Benchmark) {
	b.Summarize()
	testWords.Benchmark(b)
}
