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
func Compare(old, new *Run) Comparison {
	var c Comparison
	byName := map[string]*Benchmark{}
	for i := range old.Benchmarks {
		byName[old.Benchmarks[i].Name] = &old.Benchmarks[i]
	}
	c.Differences, c.RunNotes = differences(old, new)
	seen := map[string]bool{}
	for i := range new.Benchmarks {
		nb := &new.Benchmarks[i]
		seen[nb.Name] = true
		c.Deltas = append(c.Deltas, compareOne(byName[nb.Name], nb, c.Differences))
	}
	for i := range old.Benchmarks {
		if ob := &old.Benchmarks[i]; !seen[ob.Name] {
			c.Deltas = append(c.Deltas, compareOne(ob, nil, c.Differences))
		}
	}
	c.OldScore, c.NewScore = old.Score, new.Score
	if old.Score != nil && new.Score != nil && *old.Score > 0 && len(c.Differences) == 0 && old.Done() && new.Done() {
		ch := *new.Score / *old.Score - 1
		c.ScoreChange = &ch
	}
	return c
}

// differences lists what makes two runs' times incomparable, and what is
// only worth a note.
func differences(old, new *Run) (diff, notes []string) {
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
	differ("sizes", size(old), size(new))
	differ("suite", old.Options.Suite, new.Options.Suite)
	differ("target CPU", fmt.Sprint(old.Target.ExactCPU), fmt.Sprint(new.Target.ExactCPU))
	differ("mode", string(old.Target.Mode), string(new.Target.Mode))
	differ("isolation", old.Options.Isolation, new.Options.Isolation)
	differ("host", old.Host.Hostname, new.Host.Hostname)
	differ("CPU model", old.Host.CPUModel, new.Host.CPUModel)
	if old.Host.Corepin != new.Host.Corepin {
		notes = append(notes, fmt.Sprintf("corepin %q measured the old run, %q the new", old.Host.Corepin, new.Host.Corepin))
	}
	for _, r := range []struct {
		which string
		run   *Run
	}{{"old", old}, {"new", new}} {
		if !r.run.Done() {
			notes = append(notes, fmt.Sprintf("the %s run is %s: only its completed runs are compared", r.which, r.run.State))
		}
	}
	return diff, notes
}

// withheld says why a benchmark's verdict is withheld; "" when it is not.
func withheld(old, new *Benchmark, diff []string) string {
	for _, s := range []struct {
		which string
		b     *Benchmark
	}{{"old", old}, {"new", new}} {
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

func compareOne(old, new *Benchmark, diff []string) Delta {
	d := Delta{Alpha: benchmath.DefaultThresholds.CompareAlpha, Warnings: []string{}}
	if old != nil {
		d.Name, d.Old = old.Name, &old.Stats
	}
	if new != nil {
		d.Name, d.New = new.Name, &new.Stats
	}
	if old == nil || new == nil {
		return d
	}
	d.Withheld = withheld(old, new, diff)
	if old.N == 0 || new.N == 0 || old.MedianS == 0 {
		return d // no time to compare: no change, not -100%
	}
	ch := new.MedianS/old.MedianS - 1
	d.Change = &ch
	s1 := benchmath.NewSample(countedTimes(old), &benchmath.DefaultThresholds)
	s2 := benchmath.NewSample(countedTimes(new), &benchmath.DefaultThresholds)
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
