package results

import (
	"math"

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
}

// Comparison is two runs side by side.
type Comparison struct {
	Deltas []Delta `json:"benchmarks"`
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
	seen := map[string]bool{}
	for i := range after.Benchmarks {
		nb := &after.Benchmarks[i]
		seen[nb.Name] = true
		c.Deltas = append(c.Deltas, compareOne(byName[nb.Name], nb))
	}
	for i := range before.Benchmarks {
		if ob := &before.Benchmarks[i]; !seen[ob.Name] {
			c.Deltas = append(c.Deltas, compareOne(ob, nil))
		}
	}
	c.OldScore, c.NewScore = before.Score, after.Score
	if before.Score != nil && after.Score != nil && *before.Score > 0 {
		ch := *after.Score / *before.Score - 1
		c.ScoreChange = &ch
	}
	return c
}

func compareOne(before, after *Benchmark) Delta {
	d := Delta{Alpha: benchmath.DefaultThresholds.CompareAlpha, Warnings: []string{}}
	if before != nil {
		d.Name, d.Old = before.Name, &before.Stats
	}
	if after != nil {
		d.Name, d.New = after.Name, &after.Stats
	}
	if before == nil || after == nil || before.MedianS == 0 {
		return d
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
