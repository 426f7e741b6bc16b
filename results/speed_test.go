package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// probed is a counted run whose probes read the given rates (steps per
// second) with the thread on the CPU for on of the time.
func probed(index int, wall, before, after, on float64) RunRecord {
	return RunRecord{Index: index, WallS: wall, Valid: true,
		ProbeBefore: &SpeedProbe{Rate: before, OnCPU: &on}, ProbeAfter: &SpeedProbe{Rate: after, OnCPU: &on}}
}

func TestSpeedIsAFractionOfTheBenchmarksBest(t *testing.T) {
	b := Benchmark{Name: "loop", PlannedRuns: 4, SpeedBestRate: 900}
	b.Runs = []RunRecord{probed(0, 1, 1000, 990, 1), probed(1, 1, 800, 1000, 1), probed(2, 1, 1000, 1000, 1), probed(3, 1, 995, 1000, 1)}
	b.Summarize()
	if b.SpeedBestRate != 1000 {
		t.Errorf("best rate %v, want the fastest probe, 1000", b.SpeedBestRate)
	}
	if got := *b.Runs[1].SpeedBefore; got != 0.8 {
		t.Errorf("run 1's speed before %v, want 0.8", got)
	}
	var speed []Warning
	for _, w := range b.Warnings {
		if w.Kind == KindSpeed {
			speed = append(speed, w)
		}
	}
	if len(speed) != 1 || speed[0].Run != 1 || speed[0].Value == nil || *speed[0].Value != 0.9 {
		t.Fatalf("speed warnings %+v, want one on run 1 with value 0.9", speed)
	}
	if want := "probe before 0.80, after 1.00): the core was slowed from outside"; !strings.Contains(speed[0].Text, want) {
		t.Errorf("text %q lacks %q", speed[0].Text, want)
	}
}

func TestSpeedWarningSaysAWaitWhenTheProbeLackedTheCPU(t *testing.T) {
	r := probed(0, 1, 330, 340, 0.34)
	r.SetSpeed(1000)
	if text := r.SpeedText(); !strings.Contains(text, "had the CPU for only 34%") {
		t.Errorf("text %q does not say the probe waited", text)
	}
}

func TestWitnessExplainsSlowOutlierAndFirstRun(t *testing.T) {
	b := Benchmark{Name: "loop", PlannedRuns: 8}
	b.Runs = []RunRecord{probed(0, 1.5, 660, 670, 1)}
	for i := 1; i < 7; i++ {
		b.Runs = append(b.Runs, probed(i, 1+0.001*float64(i), 1000, 1000, 1))
	}
	b.Runs = append(b.Runs, probed(7, 2, 500, 510, 1))
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
	if !strings.Contains(first, "the core was slow, not the work cold") {
		t.Errorf("first-run warning %q does not say the witness explains it", first)
	}
	if !strings.Contains(outliers, "the speed witness explains them") {
		t.Errorf("outlier warning %q does not say the witness explains them", outliers)
	}
	// At full speed the first run is the work's own warming.
	b.Runs[0] = probed(0, 1.5, 1000, 1000, 1)
	b.Summarize()
	for _, w := range b.Warnings {
		if w.Kind == KindFirstRun && !strings.Contains(w.Text, "saw the core at full speed") {
			t.Errorf("first-run warning %q", w.Text)
		}
	}
}

func TestSpeedWarningsAreOneLineInTheTerminal(t *testing.T) {
	mk := func(name string) Benchmark {
		b := Benchmark{Name: name, PlannedRuns: 3}
		b.Runs = []RunRecord{probed(0, 1, 1000, 1000, 1), probed(1, 1, 520, 500, 1), probed(2, 1, 700, 700, 1)}
		b.Summarize()
		return b
	}
	r := &Run{Benchmarks: []Benchmark{mk("a"), mk("b")}}
	var lines []string
	for _, l := range r.SummaryWarnings() {
		if strings.Contains(l, "best speed") {
			lines = append(lines, l)
		}
	}
	want := "every benchmark: the target ran at 51–70% of its best speed by the speed witness (see run.json for each run's cause) in 4 of 6 runs"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("terminal lines %q, want one: %q", lines, want)
	}
}

func TestDroppedRunsComeBackFromTheJournal(t *testing.T) {
	kept, dropped := probed(1, 1, 1000, 1000, 1), probed(1, 2, 400, 400, 1)
	dropped.Dropped = "below the speed gate"
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

// The frequency stands beside the speed only where cpufreq gives it.
func TestSpeedTextNamesCpufreqOnly(t *testing.T) {
	lo, hi, mean := 1200.0, 2400.0, 1800.0
	r := probed(0, 1, 500, 500, 1)
	r.SetSpeed(1000)
	r.Telemetry = TelemetryStats{FreqSource: "scaling_cur_freq", FreqMinMHz: &lo, FreqMaxMHz: &hi, FreqMeanMHz: &mean}
	if text := r.SpeedText(); !strings.Contains(text, "frequency 1200–2400 MHz, mean 1800 (scaling_cur_freq)") {
		t.Errorf("text %q lacks the cpufreq figures", text)
	}
	r.Telemetry.FreqSource = "proc_cpuinfo"
	if text := r.SpeedText(); strings.Contains(text, "MHz") {
		t.Errorf("text %q gives /proc/cpuinfo's nominal clock as a figure", text)
	}
}

// A benchmark's dropped runs are said by why they were dropped: the
// speed gate's, which completed, and those whose target was shared,
// which were invalid; the terminal says each kind in one line.
func TestDroppedRunsSaidByCause(t *testing.T) {
	slow := probed(1, 2, 400, 400, 1)
	slow.Dropped = "below the speed gate"
	shared := RunRecord{Index: 2, WallS: 1.5, Error: "the target CPU was shared: others took 40%", Dropped: "the target CPU was shared: others took 40%; dropped and run again (1 of at most 2)"}
	r := &Run{Benchmarks: []Benchmark{{Name: "loop", PlannedRuns: 2,
		Runs:        []RunRecord{probed(1, 1, 1000, 1000, 1), probed(2, 1, 1000, 1000, 1)},
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
	if !strings.Contains(kinds[KindSpeedGate], "1 run(s) whose speed witness") || !strings.Contains(kinds[KindSharedRerun], "2 run(s) whose target CPU was shared were dropped and run again") {
		t.Errorf("the dropped runs' warnings: %q", kinds)
	}
	lines := strings.Join(r.SummaryWarnings(), "\n")
	for _, want := range []string{"loop: 1 run(s) per benchmark slowed below the speed gate", "loop: 2 run(s) per benchmark whose target CPU was shared were dropped and run again"} {
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
