package results

import (
	"fmt"
	"math"

	"golang.org/x/perf/benchmath"
)

// Delta is one benchmark in two runs.
type Delta struct {
	Name string `json:"name"`
	Old  *Stats `json:"old"` // the wall time's; nil when the benchmark is only in the new run
	New  *Stats `json:"new"`
	// Measure is what the two are compared in: the benchmarks' own
	// measure where both have it, else their wall time. OldFigures and
	// NewFigures are their statistics in it (nil where a run does not
	// have the benchmark).
	Measure    Measure  `json:"measure"`
	OldFigures *Summary `json:"old_figures"`
	NewFigures *Summary `json:"new_figures"`
	// Change is new median / old median - 1 in the measure: negative is
	// faster for a time, positive for a rate or a score (Better).
	Change *float64 `json:"change"`
	// P is the Mann-Whitney U test's p-value; Significant is P < Alpha.
	P           *float64 `json:"p"`
	Alpha       float64  `json:"alpha"`
	Significant bool     `json:"significant"`
	Warnings    []string `json:"warnings"`
	// Withheld says why there is no change, p-value or verdict, when the
	// two cannot be compared: an invalid or unfinished benchmark, a
	// definition that differs, or runs that differ in what they measured
	// or where (see Comparison.Differences).
	Withheld string `json:"withheld,omitempty"`
}

// Comparison is two runs side by side.
type Comparison struct {
	Deltas []Delta `json:"benchmarks"`
	// Differences are what the two runs differ in that makes their times
	// incomparable (sizes, kind, suite, isolation, target, host); each
	// verdict is then withheld. Notes are differences worth knowing that do not
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
	c.Differences, c.RunNotes = differences(before, after)
	cross := crossKind(before, after)
	paired := map[*Benchmark]bool{}
	for i := range after.Benchmarks {
		nb := &after.Benchmarks[i]
		ob := counterpart(before, nb, cross)
		paired[ob] = true
		d := compareOne(before, after, ob, nb, c.Differences)
		if ob != nil && ob.Name != nb.Name {
			d.Warnings = append(d.Warnings, fmt.Sprintf("the old run's %q ran the same command line", ob.Name))
		}
		c.Deltas = append(c.Deltas, d)
	}
	for i := range before.Benchmarks {
		if ob := &before.Benchmarks[i]; !paired[ob] {
			c.Deltas = append(c.Deltas, compareOne(before, after, ob, nil, c.Differences))
		}
	}
	c.OldScore, c.NewScore = before.Score, after.Score
	c.ScoreChange = c.scoreChange(before, after)
	return c
}

// scoreChange is the new score over the old - 1, when the two scores
// describe the same work measured to the end: no difference between the
// runs, both finished, and no benchmark whose verdict was withheld (a
// score of figures that are not times is no score either).
func (c Comparison) scoreChange(before, after *Run) *float64 {
	if before.Score == nil || after.Score == nil || !plausibleScore(*before.Score) || !plausibleScore(*after.Score) ||
		len(c.Differences) > 0 || !before.Done() || !after.Done() {
		return nil
	}
	for _, d := range c.Deltas {
		if d.Withheld != "" {
			return nil
		}
	}
	ch := *after.Score / *before.Score - 1
	return &ch
}

// plausibleScore says whether v can be a score: 1000 × a geometric mean
// of ratios of two times, each time between MinTimeS and MaxTimeS.
func plausibleScore(v float64) bool {
	span := MaxTimeS / MinTimeS // the largest ratio of two such times
	return v >= 1000/span && v <= 1000*span
}

// differences lists what makes two runs' times incomparable (what they
// measured, and where: the same work on another CPU or machine is
// another measurement), and what is only worth a note.
func differences(before, after *Run) (diff, notes []string) {
	for _, d := range measuredDifferences(before, after) {
		diff = append(diff, fmt.Sprintf("%s: %q in the old run, %q in the new", d.what, d.a, d.b))
	}
	differ := func(what, a, b string) {
		if a != b {
			diff = append(diff, fmt.Sprintf("%s: %q in the old run, %q in the new", what, a, b))
		}
	}
	if !before.Imported() && !after.Imported() {
		differ("target CPU", fmt.Sprint(before.Target.ExactCPU), fmt.Sprint(after.Target.ExactCPU))
		differ("mode", string(before.Target.Mode), string(after.Target.Mode))
		differ("host", before.Host.Hostname, after.Host.Hostname)
		differ("CPU model", before.Host.CPUModel, after.Host.CPUModel)
	} else {
		// Another tool's file says at most the host and the CPU: what it
		// says is compared, and what it does not is said.
		known := func(what, a, b string) {
			if a != "" && b != "" {
				differ(what, a, b)
			}
		}
		known("host", before.Host.Hostname, after.Host.Hostname)
		known("CPU model", before.Host.CPUModel, after.Host.CPUModel)
	}
	for _, r := range []struct {
		which string
		run   *Run
	}{{"old", before}, {"new", after}} {
		if r.run.WhereNotRecorded() {
			notes = append(notes, fmt.Sprintf("the %s run has no scheduling evidence: where it ran: not recorded (%s)", r.which, r.run.Source.Describe()))
		}
	}
	if before.Host.Corepin != after.Host.Corepin && !before.Imported() && !after.Imported() {
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

// compareOne is one benchmark of two runs (rb and ra), nil where a run
// does not have it.
func compareOne(rb, ra *Run, before, after *Benchmark, diff []string) Delta {
	d := Delta{Alpha: benchmath.DefaultThresholds.CompareAlpha, Warnings: []string{}}
	d.Measure, d.Warnings = measureOf(before, after)
	for _, s := range []struct {
		b       *Benchmark
		stats   **Stats
		figures **Summary
	}{{before, &d.Old, &d.OldFigures}, {after, &d.New, &d.NewFigures}} {
		if s.b == nil {
			continue
		}
		d.Name, *s.stats = s.b.Name, &s.b.Stats
		if fig, ok := s.b.figuresIn(d.Measure); ok {
			*s.figures = &fig
		}
	}
	if before == nil || after == nil {
		return d
	}
	d.Withheld = withheld(rb, ra, before, after, diff, "the old run", "the new run")
	if d.Withheld == "" && (d.OldFigures == nil || d.NewFigures == nil) {
		d.Withheld = noMeasureInCommon(before, after, "the old run", "the new run")
	}
	ratio, ok := ratioIn(d.Measure, before, after)
	if d.Withheld != "" || !ok {
		return d // nothing to compare: no change, not -100%, and no test
	}
	ch := ratio - 1
	d.Change = &ch
	var w []string
	d.P, d.Significant, w = uTest(d.Measure, before, after)
	d.Warnings = append(d.Warnings, w...)
	return d
}

// uTest is the Mann-Whitney U test of two benchmarks' counted runs in
// the measure m: its p-value (nil when there are too few runs for one),
// whether it is below the test's alpha, and benchmath's warnings.
func uTest(m Measure, a, b *Benchmark) (p *float64, significant bool, warnings []string) {
	s1 := benchmath.NewSample(a.valuesIn(m), &benchmath.DefaultThresholds)
	s2 := benchmath.NewSample(b.valuesIn(m), &benchmath.DefaultThresholds)
	cmp := benchmath.AssumeNothing.Compare(s1, s2)
	if !math.IsNaN(cmp.P) {
		v := cmp.P
		p, significant = &v, v < cmp.Alpha
	}
	warnings = []string{}
	for _, w := range cmp.Warnings {
		warnings = append(warnings, w.Error())
	}
	return p, significant, warnings
}
