package results

import (
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
