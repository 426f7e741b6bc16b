package results

import (
	"strings"
	"testing"
)

func fptr(v float64) *float64 { return &v }

func ptr[T any](v T) *T { return &v }

var score = Measure{Name: "score", Unit: "score", Better: HigherIsBetter}

func TestDeltaVerdicts(t *testing.T) {
	st := &Stats{N: 6, MedianS: 1, CILowS: 0.9, CIHighS: 1.1, CIConf: 0.95}
	tests := []struct {
		d    Delta
		want string
	}{
		{Delta{New: st}, VerdictOnlyInNew},
		{Delta{Old: st}, VerdictOnlyInOld},
		{Delta{Old: st, New: st, Change: fptr(0.1)}, VerdictTooFew},
		{Delta{Old: st, New: st, Change: fptr(0.1), P: fptr(0.4)}, VerdictNoDifference},
		{Delta{Old: st, New: st, Change: fptr(-0.2), P: fptr(0.001), Significant: true}, VerdictFaster},
		{Delta{Old: st, New: st, Change: fptr(0.2), P: fptr(0.001), Significant: true}, VerdictSlower},
		// A score or a rate: higher is better.
		{Delta{Old: st, New: st, Measure: score, Change: fptr(0.1), P: fptr(0.001), Significant: true}, VerdictFaster},
		{Delta{Old: st, New: st, Measure: score, Change: fptr(-0.1), P: fptr(0.001), Significant: true}, VerdictSlower},
	}
	for _, tt := range tests {
		if got := tt.d.Verdict(); got != tt.want {
			t.Errorf("%+v: verdict %q, want %q", tt.d, got, tt.want)
		}
		if row := tt.d.Row(); row[len(row)-1] != tt.want {
			t.Errorf("row %q does not end with the verdict %q", row, tt.want)
		}
	}
}

func TestComparisonViews(t *testing.T) {
	old := &Stats{N: 6, MedianS: 2, CILowS: 1.9, CIHighS: 2.1, CIConf: 0.95}
	few := &Stats{N: 1, MedianS: 1, CILowS: 1, CIHighS: 1}
	c := Comparison{
		Deltas: []Delta{
			{Name: "fib", Old: old, New: few, Measure: WallTime, OldFigures: ptr(old.summary()), NewFigures: ptr(few.summary()),
				Change: fptr(-0.5), Warnings: []string{"noisy"}},
		},
		OldScore: fptr(1000), NewScore: fptr(2000), ScoreChange: fptr(1),
	}
	var text, csv strings.Builder
	if err := c.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"BENCHMARK  OLD MEDIAN", "1.900 s – 2.100 s", "-50.0%", VerdictTooFew, "score 1000 → 2000 (+100.0%)", "note: fib: noisy"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := c.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	// The new run has no interval: its bounds are left empty, not 1 and 1.
	if len(lines) != 2 || lines[1] != "fib,2,1.9,2.1,1,,,-0.5,,false,"+VerdictTooFew+",wall time,s,lower,2,1.9,2.1,1,," {
		t.Errorf("CSV:\n%s", csv.String())
	}
}
