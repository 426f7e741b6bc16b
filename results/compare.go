package results

import (
	"fmt"
	"math"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Delta is one benchmark in two runs.
type Delta struct {
	Name string `json:"name"`
	Old  *Stats `json:"old"` // nil when the benchmark is only in the new run
	New  *Stats `json:"new"`
	// Change is new median / old median - 1: negative is faster.
	Change *float64 `json:"change"`
	// P is the Mann-Whitney U test's p-value; Significant is P < Alpha.
	P           *float64 `json:"p"`
	Alpha       float64  `json:"alpha"`
	Significant bool     `json:"significant"`
	Warnings    []string `json:"warnings"`
	// Withheld says why there is no verdict, when the two cannot be
	// compared: an invalid or unfinished benchmark, or runs that differ
	// in what they measured (see Comparison.Differences).
	Withheld string `json:"withheld,omitempty"`
}

// Comparison is two runs side by side.
type Comparison struct {
	Deltas []Delta `json:"benchmarks"`
	// Differences are what the two runs differ in that makes their times
	// incomparable (sizes, suite, target, isolation, host); each verdict
	// is then withheld. Notes are differences worth knowing that do not
	// (corepin's version, a run that did not finish).
	Differences []string `json:"differences"`
	RunNotes    []string `json:"run_notes"`
	// ScoreChange is new score / old score - 1, when both have a score.
	OldScore    *float64 `json:"old_score"`
	NewScore    *float64 `json:"new_score"`
	ScoreChange *float64 `json:"score_change"`
}

// Compare compares the counted runs of each benchmark of two runs.
func Compare(before, after *Run) Comparison {
	var c Comparison
	byName := map[string]*Benchmark{}
	for i := range before.Benchmarks {
		byName[before.Benchmarks[i].Name] = &before.Benchmarks[i]
	}
	c.Differences, c.RunNotes = differences(before, after)
	seen := map[string]bool{}
	for i := range after.Benchmarks {
		nb := &after.Benchmarks[i]
		seen[nb.Name] = true
		c.Deltas = append(c.Deltas, compareOne(byName[nb.Name], nb, c.Differences))
	}
	for i := range before.Benchmarks {
		if ob := &before.Benchmarks[i]; !seen[ob.Name] {
			c.Deltas = append(c.Deltas, compareOne(ob, nil, c.Differences))
		}
	}
	c.OldScore, c.NewScore = before.Score, after.Score
	if before.Score != nil && after.Score != nil && *before.Score > 0 && len(c.Differences) == 0 && before.Done() && after.Done() {
		ch := *after.Score / *before.Score - 1
		c.ScoreChange = &ch
	}
	return c
}

// differences lists what makes two runs' times incomparable, and what is
// only worth a note.
func differences(before, after *Run) (diff, notes []string) {
	differ := func(what, a, b string) {
		if a != b {
			diff = append(diff, fmt.Sprintf("%s: %q in the old run, %q in the new", what, a, b))
		}
	}
	size := func(r *Run) string {
		if r.Options.Quick {
			return "quick"
		}
		return "full"
	}
	differ("sizes", size(before), size(after))
	differ("suite", before.Options.Suite, after.Options.Suite)
	differ("target CPU", fmt.Sprint(before.Target.ExactCPU), fmt.Sprint(after.Target.ExactCPU))
	differ("mode", string(before.Target.Mode), string(after.Target.Mode))
	differ("isolation", before.Options.Isolation, after.Options.Isolation)
	differ("host", before.Host.Hostname, after.Host.Hostname)
	differ("CPU model", before.Host.CPUModel, after.Host.CPUModel)
	if before.Host.Corepin != after.Host.Corepin {
		notes = append(notes, fmt.Sprintf("corepin %q measured the old run, %q the new", before.Host.Corepin, after.Host.Corepin))
	}
	for _, r := range []struct {
		which string
		run   *Run
	}{{"old", before}, {"new", after}} {
		if !r.run.Done() {
			notes = append(notes, fmt.Sprintf("the %s run is %s: only its completed runs are compared", r.which, r.run.State))
		}
	}
	return diff, notes
}

// withheld says why a benchmark's verdict is withheld; "" when it is not.
func withheld(before, after *Benchmark, diff []string) string {
	for _, s := range []struct {
		which string
		b     *Benchmark
	}{{"old", before}, {"new", after}} {
		switch b := s.b; {
		case b.N == 0:
			return fmt.Sprintf("no completed run in the %s run", s.which)
		case b.CompletedRuns < b.PlannedRuns:
			return fmt.Sprintf("%d of %d runs completed in the %s run", b.CompletedRuns, b.PlannedRuns, s.which)
		case !b.Valid:
			return fmt.Sprintf("invalid in the %s run", s.which)
		}
	}
	if len(diff) > 0 {
		return "the runs differ in " + strings.Join(diffWhat(diff), ", ")
	}
	return ""
}

func diffWhat(diff []string) []string {
	var out []string
	for _, d := range diff {
		what, _, _ := strings.Cut(d, ":")
		out = append(out, what)
	}
	return out
}

func compareOne(before, after *Benchmark, diff []string) Delta {
	d := Delta{Alpha: benchmath.DefaultThresholds.CompareAlpha, Warnings: []string{}}
	if before != nil {
		d.Name, d.Old = before.Name, &before.Stats
	}
	if after != nil {
		d.Name, d.New = after.Name, &after.Stats
	}
	if before == nil || after == nil {
		return d
	}
	d.Withheld = withheld(before, after, diff)
	if before.N == 0 || after.N == 0 || before.MedianS == 0 {
		return d // no time to compare: no change, not -100%
	}
	ch := after.MedianS/before.MedianS - 1
	d.Change = &ch
	s1 := benchmath.NewSample(countedTimes(before), &benchmath.DefaultThresholds)
	s2 := benchmath.NewSample(countedTimes(after), &benchmath.DefaultThresholds)
	cmp := benchmath.AssumeNothing.Compare(s1, s2)
	if !math.IsNaN(cmp.P) {
		p := cmp.P
		d.P = &p
		d.Significant = p < cmp.Alpha
	}
	for _, w := range cmp.Warnings {
		d.Warnings = append(d.Warnings, w.Error())
	}
	return d
}

func countedTimes(b *Benchmark) []float64 {
	var t []float64
	for _, r := range b.Runs {
		if !r.Warmup && r.Error == "" {
			t = append(t, r.WallS)
		}
	}
	return t
}
