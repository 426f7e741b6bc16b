package account

import (
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results/evidence"
)

// A sampled coverage is judged only for a tree that used at least five of
// the watcher's periods of CPU time, over at least five samples, and
// never with the watcher off; an exact one always.
func TestCoverageTooShortToJudge(t *testing.T) {
	one := 1.0
	for _, c := range []struct {
		name     string
		treeCPU  float64
		periodMs int
		samples  int
		perCPU   map[int]float64
		tooShort bool
	}{
		{"a few milliseconds, sampled", 0.03, 100, 20, nil, true},
		{"just under five periods", 0.49, 100, 20, nil, true},
		{"five periods", 0.5, 100, 20, nil, false},
		{"a short tree at a short period", 0.03, 5, 20, nil, false},
		{"five periods of four samples (a watcher that missed its ticks)", 0.5, 100, 4, nil, true},
		{"a few milliseconds, exact", 0.03, 100, 20, map[int]float64{3: 0.03}, false},
		// exec --watch 0 without a cgroup: no samples, and none missed.
		{"the watcher off", 1, 0, 0, nil, true},
	} {
		r := &evidence.Scheduling{
			Child: evidence.ChildReport{WallS: 1, UserS: c.treeCPU},
			Watch: &evidence.Watch{PeriodMs: c.periodMs, Samples: c.samples, OnTargetRatio: &one, Threads: []evidence.ThreadStat{{CPUSeconds: c.treeCPU / 10}}},
			Tree:  &evidence.TreeReport{PerCPUSeconds: c.perCPU},
		}
		Account(r, cpuset.Of(3))
		cov := r.Coverage
		want := "under 5"
		if c.periodMs == 0 {
			want = "the watcher was off"
		}
		if (cov.TooShort != "") != c.tooShort || c.tooShort && !strings.Contains(cov.TooShort, want) {
			t.Errorf("%s: too short %q, want %v (coverage %+v)", c.name, cov.TooShort, c.tooShort, cov)
		}
	}
}

// A run too short to judge says so of its residency: it is claimed
// neither way (the judge's keptUp says the same of the watcher's missed
// ticks).
func TestSummaryOfARunTooShortToJudge(t *testing.T) {
	one := 1.0
	for _, treeCPU := range []float64{0.03, 1} {
		r := &evidence.Scheduling{
			Command: []string{"true"},
			Child:   evidence.ChildReport{WallS: 1, UserS: treeCPU},
			Watch: &evidence.Watch{PeriodMs: 100, Samples: 12, OnTargetRatio: &one, Threads: []evidence.ThreadStat{{CPUSeconds: treeCPU, Running: 3}},
				KeepUp: evidence.KeepUp{Unvouched: true, Missed: 8, Expected: 10, MissedShare: 0.8, Priority: "fifo:1"}},
			Tree: &evidence.TreeReport{Mechanism: "process-group"},
		}
		Account(r, cpuset.Of(3))
		s := ReportLine(r, "--observe")
		short := r.Coverage.TooShort != ""
		if short != (treeCPU < 0.5) {
			t.Errorf("%.2f s of CPU time: too short %v, summary %q", treeCPU, short, s)
		}
		if want := "too short to judge what it covers"; short != strings.Contains(s, want) {
			t.Errorf("%.2f s of CPU time: the summary says %q: want %q only when too short", treeCPU, s, want)
		}
	}
}
