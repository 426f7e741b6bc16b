package results

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func finished(bs ...Benchmark) *Run {
	r := &Run{Schema: Schema, State: StateFinished, Benchmarks: bs, Host: Host{Hostname: "h", Corepin: "v1"}}
	r.Options.Isolation = "process"
	return r
}

func TestCompareWithholdsWhatCannotBeCompared(t *testing.T) {
	good := finished(bench("fib", 1, 1, 1.01, 0.99, 1, 1.02, 0.98), bench("sha256", 1, 2, 2.01, 1.99, 2, 2.02, 1.98))
	crashed := finished(bench("fib", 1, 0.5, 0.51), Benchmark{Name: "sha256", PlannedRuns: 6})
	crashed.State = StateCrashed
	crashed.Benchmarks[0].PlannedRuns = 6
	crashed.Settle()
	c := Compare(good, crashed)
	for _, d := range c.Deltas {
		v := d.Verdict()
		if !strings.HasPrefix(v, VerdictWithheld) {
			t.Errorf("%s: verdict %q for an unfinished benchmark", d.Name, v)
		}
		if d.Name == "sha256" && d.Change != nil {
			t.Errorf("sha256 never ran and changed by %v", *d.Change)
		}
	}
	if c.ScoreChange != nil || !strings.Contains(strings.Join(c.Notes(), "\n"), "the new run is crashed") {
		t.Errorf("score change %v, notes %q", c.ScoreChange, c.Notes())
	}

	quick := finished(bench("fib", 1, 0.5, 0.51, 0.49, 0.5, 0.52, 0.48))
	quick.Options.Quick = true
	c = Compare(good, quick)
	if v := c.Deltas[0].Verdict(); !strings.Contains(v, "sizes") || len(c.Differences) != 1 {
		t.Errorf("quick against full: %q, differences %q", v, c.Differences)
	}
	if c := Compare(good, good); c.Deltas[0].Withheld != "" || len(c.Differences) != 0 {
		t.Errorf("a run against itself: %+v", c)
	}
}

// asWritten is a finished benchmark as a run.json holds it, its figures
// read as written rather than computed here: median and the counted runs'
// times.
func asWritten(median float64, walls ...float64) Benchmark {
	b := Benchmark{Name: "fib", Kind: "builtin", Valid: true, PlannedRuns: len(walls), CompletedRuns: len(walls),
		Stats: Stats{N: len(walls), MedianS: median, CILowS: median, CIHighS: median, MinS: median, MaxS: median}}
	for i, w := range walls {
		b.Runs = append(b.Runs, RunRecord{Index: i, WallS: w, Valid: true})
	}
	return b
}

// TestNumbersThatAreNotTimesAreWithheld: a median or a run's time that is
// not a time (infinite in a ratio, 1e-300, 0, negative) is related to
// nothing: compare and merge give no change, ratio, p-value or verdict,
// say why, and their JSON is written.
func TestNumbersThatAreNotTimesAreWithheld(t *testing.T) {
	normal := func() *Run { return finished(asWritten(0.1, 0.1, 0.101, 0.099, 0.1, 0.102, 0.098)) }
	six := func(v float64) []float64 { return []float64{v, v, v, v, v, v} }
	for _, tt := range []struct {
		name   string
		b      Benchmark
		reason string
	}{
		{"a median of 1e308", asWritten(1e308, six(1e308)...), "1e+308 s, is not a time: above 10⁹ s"},
		{"a median of 1e-300", asWritten(1e-300, six(1e-300)...), "1e-300 s, is not a time: below 1 ns"},
		{"a median of 0", asWritten(0, six(0)...), "0 s, is not a time: not positive"},
		{"a negative run", asWritten(0.1, 0.1, 0.1, -1, 0.1, 0.1, 0.1), "the time of run 2 in"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			odd := finished(tt.b)
			for _, pair := range [][2]*Run{{normal(), odd}, {odd, normal()}} {
				c := Compare(pair[0], pair[1])
				d := c.Deltas[0]
				if d.Change != nil || d.P != nil || d.Significant || !strings.Contains(d.Withheld, tt.reason) {
					t.Errorf("compare: change %v, p %v, significant %v, withheld %q; want none, withheld for %q", d.Change, d.P, d.Significant, d.Withheld, tt.reason)
				}
				checkViews(t, "compare", c, c.WriteText)
			}
			m := Merged([]*Run{normal(), odd}, []string{"a", "b"})
			cell := m.Benchmarks[0].Cells[1]
			if cell.Relative != nil || cell.P != nil || cell.Significant || !strings.Contains(cell.Withheld, "in [2], ") || !strings.Contains(cell.Withheld, tt.reason) {
				t.Errorf("merge: relative %v, p %v, withheld %q; want none, withheld for %q", cell.Relative, cell.P, cell.Withheld, tt.reason)
			}
			checkViews(t, "merge", m, m.WriteText)
			first := Merged([]*Run{odd, normal()}, []string{"a", "b"}).Benchmarks[0].Cells
			if first[0].Ratio != nil || first[1].Relative != nil || !strings.Contains(first[1].Withheld, "in [1], ") {
				t.Errorf("merge with it first: ratio %v, relative %v, withheld %q", first[0].Ratio, first[1].Relative, first[1].Withheld)
			}
		})
	}
	// A score that no times make is no score to change.
	a, b := normal(), normal()
	old, tiny := 1000.0, 1e-300
	a.Score, b.Score = &old, &tiny
	if c := Compare(a, b); c.ScoreChange != nil {
		t.Errorf("a score of 1e-300 against 1000 changed by %v", *c.ScoreChange)
	}
	b.Score = &old
	if c := Compare(a, b); c.ScoreChange == nil || *c.ScoreChange != 0 {
		t.Errorf("two scores of 1000: change %v", c.ScoreChange)
	}
}

// checkViews writes v as JSON and as text: both must be written, with no
// infinity and no verdict in the text.
func checkViews(t *testing.T, what string, v any, text func(io.Writer) error) {
	t.Helper()
	if _, err := json.Marshal(v); err != nil {
		t.Errorf("%s --format json: %v", what, err)
	}
	var b bytes.Buffer
	if err := text(&b); err != nil {
		t.Errorf("%s text: %v", what, err)
	}
	for _, bad := range []string{"Inf", "NaN", "faster", "slower", "×"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("%s text says %q:\n%s", what, bad, b.String())
		}
	}
}
