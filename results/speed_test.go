package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"corepin.dev/corepin/results/evidence"
)

// timed is a counted run of wall seconds that used cpu seconds of CPU
// time, whose probe after it read probe steps per second.
func timed(index int, wall, cpu, probe float64) RunRecord {
	on := 1.0
	zero := 0.0
	return RunRecord{Index: index, WallS: wall, UserS: cpu, Valid: true, OthersS: &zero, StealS: &zero,
		ProbeAfter: &SpeedProbe{Rate: probe, OnCPU: &on}}
}

// steady is a benchmark of six runs within 2% of each other, each of
// whose probes read rates[i].
func steady(rates ...float64) Benchmark {
	b := Benchmark{Name: "loop", PlannedRuns: len(rates), SpeedBestRate: 1000}
	for i, r := range rates {
		w := 1 + 0.004*float64(i)
		b.Runs = append(b.Runs, timed(i, w, w, r))
	}
	return b
}

func speedWarnings(b Benchmark) []Warning {
	var out []Warning
	for _, w := range b.Warnings {
		if w.Kind == KindSpeed {
			out = append(out, w)
		}
	}
	return out
}

// Runs within the benchmark's own spread are never called slowed,
// whatever the probe read after them: it read the core at another moment.
func TestSteadyRunsAreNeverSlowed(t *testing.T) {
	b := steady(1000, 410, 450, 1000, 300, 500)
	b.Summarize()
	if w := speedWarnings(b); len(w) != 0 {
		t.Errorf("steady runs called slowed: %v", WarningTexts(w))
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
	b.Summarize()
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
	b.Summarize()
	w := speedWarnings(b)
	if len(w) != 1 || !strings.Contains(w[0].Text, "others took 970.0 ms of the target during it (spin (42) 960.0 ms)") {
		t.Fatalf("speed warnings %v", WarningTexts(w))
	}
}

// A run whose CPU time grew is slowed by the core only where the probe
// after it agrees; where the probe read the core at full speed, the work
// may have done more, and nothing is claimed.
func TestCoreSlowedOnlyWhereTheProbeAgrees(t *testing.T) {
	b := steady(1000, 1000, 1000, 1000, 1000, 1000)
	b.Runs[2] = timed(2, 1.5, 1.5, 550)
	b.Summarize()
	w := speedWarnings(b)
	if len(w) != 1 || !strings.Contains(w[0].Text, "it needed 1.50× its best run's CPU time, and the speed probe after it read the core at 0.55 of its best") {
		t.Fatalf("speed warnings %v", WarningTexts(w))
	}
	b.Runs[2] = timed(2, 1.5, 1.5, 990)
	b.Summarize()
	if w := speedWarnings(b); len(w) != 0 {
		t.Errorf("a run whose probe read full speed called slowed: %v", WarningTexts(w))
	}
}

// Time off the CPU that nothing measured accounts for (the work slept,
// or a limit corepin cannot read) is no claim.
func TestUnexplainedWaitIsNoClaim(t *testing.T) {
	b := steady(1000, 1000, 1000, 1000, 1000, 1000)
	b.Runs[1] = timed(1, 2, 1.0, 500)
	b.Summarize()
	if w := speedWarnings(b); len(w) != 0 {
		t.Errorf("an unexplained wait called slowed: %v", WarningTexts(w))
	}
	if s := *b.Runs[1].Speed; s != 0.5 {
		t.Errorf("own speed %v, want 0.5", s)
	}
}

// An older corepin's run.json, with probes before and after and nothing
// measured during the run, has its runs judged by their own times: probes
// alone call nothing slowed.
func TestOlderProbesAloneClaimNothing(t *testing.T) {
	b := Benchmark{Name: "loop", PlannedRuns: 6}
	for i := range 6 {
		b.Runs = append(b.Runs, RunRecord{Index: i, WallS: 1 + 0.01*float64(i), UserS: 1, Valid: true,
			ProbeBefore: &SpeedProbe{Rate: 400}, ProbeAfter: &SpeedProbe{Rate: 1000}})
	}
	b.Runs[5].WallS = 3
	b.Summarize()
	if w := speedWarnings(b); len(w) != 0 {
		t.Errorf("probes alone called runs slowed: %v", WarningTexts(w))
	}
}

func TestFirstRunAndOutliersSayWhichWereSlowed(t *testing.T) {
	b := steady(1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000)
	b.Runs[0] = timed(0, 1.5, 1.5, 600)
	b.Runs[7] = timed(7, 2, 2, 500)
	b.Summarize()
	var first, outliers string
	for _, w := range b.Warnings {
		switch w.Kind {
		case KindFirstRun:
			first = w.Text
		case KindOutliers:
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
	b.Summarize()
	for _, w := range b.Warnings {
		if w.Kind == KindFirstRun && !strings.Contains(w.Text, "likely not warm") {
			t.Errorf("first-run warning %q", w.Text)
		}
	}
}

// The gate judges a run against the runs so far: with a warm-up alone,
// against it.
func TestSpeedReferenceOfAWarmUpAlone(t *testing.T) {
	warm := timed(0, 1, 1, 1000)
	warm.Warmup = true
	b := Benchmark{Name: "loop", Runs: []RunRecord{warm}, SpeedBestRate: 1000}
	ref := b.SpeedReference()
	if ref.BestS() != 1 || ref.MedianS != 1 {
		t.Fatalf("reference best %v, median %v: want the warm-up's 1 s", ref.BestS(), ref.MedianS)
	}
	run := timed(1, 3, 1, 1000)
	th := 2.0
	run.ThrottledS = &th
	run.JudgeSpeed(ref)
	if !run.Slowed() {
		t.Error("a throttled run at a third of the warm-up's speed is not slowed")
	}
}

func TestSpeedWarningsAreOneLineInTheTerminal(t *testing.T) {
	mk := func(name string) Benchmark {
		b := steady(1000, 1000, 1000)
		b.Name = name
		b.Runs[1] = timed(1, 2, 2, 500)
		b.Summarize()
		return b
	}
	r := &Run{Benchmarks: []Benchmark{mk("a"), mk("b")}}
	var lines []string
	for _, l := range r.SummaryWarnings() {
		if strings.Contains(l, "slowed") {
			lines = append(lines, l)
		}
	}
	want := "every benchmark: spread 43% (coefficient of variation) is above 5%: rerun with more runs on a quieter machine; 2 of all 6 runs were slowed, at 50% of their best run's speed (run.json says by what); outlier runs in a, b"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("terminal lines %q, want one: %q", lines, want)
	}
}

func TestDroppedRunsComeBackFromTheJournal(t *testing.T) {
	kept, dropped := timed(1, 1, 1, 1000), timed(1, 2, 2, 400)
	dropped.Dropped = "slowed"
	var buf bytes.Buffer
	for _, rec := range []RunRecord{dropped, kept} {
		line, _ := json.Marshal(entry{Benchmark: "loop", Record: rec})
		buf.Write(append(line, '\n'))
	}
	r := &Run{Benchmarks: []Benchmark{{Name: "loop", PlannedRuns: 1}}}
	if err := replay(r, &buf); err != nil {
		t.Fatal(err)
	}
	b := &r.Benchmarks[0]
	b.Summarize()
	if len(b.Runs) != 1 || len(b.DroppedRuns) != 1 || b.MedianS != 1 {
		t.Fatalf("runs %d, dropped %d, median %v: want the dropped run out of the statistics", len(b.Runs), len(b.DroppedRuns), b.MedianS)
	}
	found := false
	for _, w := range b.Warnings {
		found = found || (w.Kind == KindSpeedGate && strings.Contains(w.Text, "runs [0]"))
	}
	if !found {
		t.Errorf("no speed-gate warning naming the included runs: %+v", b.Warnings)
	}
}

// The frequency stands beside the core's speed only where cpufreq gives
// it.
func TestSpeedTextNamesCpufreqOnly(t *testing.T) {
	lo, hi, mean := 1200.0, 2400.0, 1800.0
	b := steady(1000, 1000, 1000, 1000, 1000, 1000)
	b.Runs[2] = timed(2, 2, 2, 500)
	b.Runs[2].Telemetry = TelemetryStats{FreqSource: "scaling_cur_freq", FreqMinMHz: &lo, FreqMaxMHz: &hi, FreqMeanMHz: &mean}
	b.Summarize()
	if w := speedWarnings(b); len(w) != 1 || !strings.Contains(w[0].Text, "frequency 1200–2400 MHz, mean 1800 (scaling_cur_freq)") {
		t.Errorf("warnings %v lack the cpufreq figures", WarningTexts(w))
	}
	b.Runs[2].Telemetry.FreqSource = "proc_cpuinfo"
	b.Summarize()
	if w := speedWarnings(b); len(w) != 1 || strings.Contains(w[0].Text, "MHz") {
		t.Errorf("warnings %v give /proc/cpuinfo's nominal clock as a figure", WarningTexts(w))
	}
}

// A benchmark's dropped runs are said by why they were dropped: the
// speed gate's, which completed, and those whose target was shared,
// which were invalid; the terminal says each kind in one line.
func TestDroppedRunsSaidByCause(t *testing.T) {
	slow := timed(1, 2, 2, 400)
	slow.Dropped = "slowed"
	shared := RunRecord{Index: 2, WallS: 1.5, Error: "the target CPU was shared: others took 40%", Dropped: "the target CPU was shared: others took 40%; dropped and run again (1 of at most 2)"}
	r := &Run{Benchmarks: []Benchmark{{Name: "loop", PlannedRuns: 2,
		Runs:        []RunRecord{timed(1, 1, 1, 1000), timed(2, 1, 1, 1000)},
		DroppedRuns: []RunRecord{slow, shared, shared}}}}
	r.Settle()
	b := r.Benchmarks[0]
	if !b.Valid || b.N != 2 {
		t.Fatalf("valid %v, n %d: the dropped runs must not count", b.Valid, b.N)
	}
	kinds := map[string]string{}
	for _, w := range b.Warnings {
		if w.Kind == KindSpeedGate || w.Kind == KindSharedRerun {
			kinds[w.Kind] = w.Text
		}
	}
	if !strings.Contains(kinds[KindSpeedGate], "1 run(s) called slowed were dropped by --speed-gate") || !strings.Contains(kinds[KindSharedRerun], "2 run(s) whose target CPU was shared were dropped and run again") {
		t.Errorf("the dropped runs' warnings: %q", kinds)
	}
	lines := strings.Join(r.SummaryWarnings(), "\n")
	for _, want := range []string{"loop: 1 run(s) per benchmark called slowed were dropped by --speed-gate and re-run", "loop: 2 run(s) per benchmark whose target CPU was shared were dropped and run again"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the terminal's lines do not say %q:\n%s", want, lines)
		}
	}
}

// When every run was dropped, the warning says that no run is in the
// statistics, not "the statistics are of runs []".
func TestDroppedRunsWithNoneLeft(t *testing.T) {
	shared := RunRecord{Index: 0, WallS: 1.5, Error: "the target CPU was shared: others took 40%", Dropped: "the target CPU was shared: others took 40%; dropped and run again (1 of at most 2)"}
	r := &Run{Benchmarks: []Benchmark{{Name: "loop", PlannedRuns: 1, Runs: []RunRecord{}, DroppedRuns: []RunRecord{shared, shared}}}}
	r.Settle()
	said := false
	for _, w := range r.Benchmarks[0].Warnings {
		if w.Kind == KindSharedRerun {
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
