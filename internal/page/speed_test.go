package page

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/results"
)

// witnessed is a run of wall seconds, as much CPU time, whose probe after
// it read speed of the best.
func witnessed(i int, wall, speed float64) results.RunRecord {
	return results.RunRecord{Index: i, WallS: wall, UserS: wall, Valid: true, ProbeAfter: &results.SpeedProbe{Rate: speed * 1e9}}
}

// The scatter has a point per run with a probe reading, the slowed ones
// apart, and gives the correlation: here the time is exactly the work
// over the speed, which the probe explains in full.
func TestSpeedScatter(t *testing.T) {
	b := results.Benchmark{Name: "loop"}
	for i, s := range []float64{1, 0.95, 0.5, 0.98, 0.7} {
		b.Runs = append(b.Runs, witnessed(i, 0.07/s, s))
	}
	b.Runs = append(b.Runs, results.RunRecord{Index: 5, WallS: 0.2, Valid: true}) // no witness: no point
	b.Runs = append(b.Runs, results.RunRecord{Index: 6, WallS: 0.2, Error: "killed", ProbeBefore: &results.SpeedProbe{Rate: 1e9}})
	b.Summarize()
	judge.Words{}.Benchmark(&b) // which runs were slowed
	chart, note := speedScatter(b)
	svg := string(chart)
	if n := strings.Count(svg, "<circle") - strings.Count(svg, `cy="14"`); n != 5 {
		t.Errorf("%d points, want one for each of the 5 witnessed runs:\n%s", n, svg)
	}
	if !strings.Contains(svg, "not slowed (3)") || !strings.Contains(svg, "slowed (2)") || !strings.Contains(svg, "run time / ms") {
		t.Errorf("legend or unit missing:\n%s", svg)
	}
	xs, ys := []float64{1, 0.95, 0.5, 0.98, 0.7}, []float64{}
	for _, s := range xs {
		ys = append(ys, 0.07/s)
	}
	want, _ := correlation(xs, ys)
	if r := fmt.Sprintf("%+.2f", want); !strings.Contains(note, "Over the 5 counted runs") || !strings.Contains(note, r) {
		t.Errorf("note %q, want the 5 runs and r = %s", note, r)
	}
	if want > -0.9 {
		t.Errorf("time = work / speed correlates %.2f with the speed, want near −1", want)
	}
}

// Fewer than three witnessed runs draw nothing; a time or a witness that
// does not vary gives no correlation.
func TestSpeedScatterNeedsThreeRunsAndVariation(t *testing.T) {
	b := results.Benchmark{Runs: []results.RunRecord{witnessed(0, 1, 1), witnessed(1, 1.1, 0.9)}}
	b.Summarize()
	if chart, _ := speedScatter(b); chart != "" {
		t.Error("a scatter of two runs")
	}
	b = results.Benchmark{Runs: []results.RunRecord{witnessed(0, 1, 1), witnessed(1, 1.1, 1), witnessed(2, 1.2, 1)}}
	b.Summarize()
	if _, note := speedScatter(b); !strings.Contains(note, "no correlation") {
		t.Errorf("a witness that did not vary: %q", note)
	}
	if r, ok := correlation([]float64{1, 2, 3}, []float64{6, 4, 2}); !ok || math.Abs(r+1) > 1e-12 {
		t.Errorf("the correlation of a falling line is %v, want −1", r)
	}
	if _, ok := correlation([]float64{1, 1}, []float64{1, 2}); ok {
		t.Error("a correlation of a constant")
	}
}
