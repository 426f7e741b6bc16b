package results

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Summarize computes the statistics of the counted runs (their wall time
// and, where the benchmark has a measure of its own, its values), each
// run's speed against its benchmark's best run, the ratio to the
// reference and validity. It judges nothing: the warnings are the judge's
// findings (package internal/judge), kept as they were found.
func (b *Benchmark) Summarize() {
	var times []float64
	var counted []int
	runsValid, figures := true, true
	m, _ := b.Figures()
	b.CompletedRuns, b.CompletedWarmups = 0, 0
	for i, r := range b.Runs {
		if r.Warmup {
			b.CompletedWarmups++
			continue
		}
		b.CompletedRuns++
		runsValid = runsValid && r.Valid
		if r.Error != "" {
			continue
		}
		// A run whose figure is not one (a journal or a caller that wrote
		// 1e300 or -1) is kept out of every statistic, which it would make
		// infinite or meaningless, and the benchmark is not valid.
		if _, _, p := r.notAFigure(m); p != "" {
			figures = false
			continue
		}
		if t, ok := r.valueIn(WallTime); ok {
			times = append(times, t)
			counted = append(counted, i)
		}
	}
	b.Stats = summarize(times, counted).seconds()
	b.settleSpeed() // against the median just found
	if b.Measure != nil {
		b.Measure.Stats = b.summarizeIn(b.Measure.Measure)
	}
	// A benchmark is valid only when every planned run completed, with
	// the figure it is judged by.
	_, fig := b.Figures()
	b.Valid = runsValid && fig.N > 0 && figures && b.CompletedRuns >= b.PlannedRuns
	b.Ratio = nil
	if r, ok := b.ratio(); ok {
		b.Ratio = &r
	}
	if b.Warnings == nil {
		b.Warnings = []Warning{}
	}
}

// summarizeIn is the statistics of the counted runs' values in m.
func (b *Benchmark) summarizeIn(m Measure) Summary {
	var values []float64
	var counted []int
	for i, r := range b.Runs {
		if _, _, p := r.notAFigure(m); p != "" {
			continue
		}
		if v, ok := r.valueIn(m); ok && !r.Warmup && r.Error == "" {
			values = append(values, v)
			counted = append(counted, i)
		}
	}
	return summarize(values, counted)
}

// ratio is how many times better than its reference the benchmark's
// median is: reference / median for a time, median / reference for a
// rate or a score.
func (b *Benchmark) ratio() (float64, bool) {
	m, fig := b.Figures()
	if fig.N == 0 || m.problem(b.reference()) != "" {
		return 0, false
	}
	return m.Gain(b.reference(), fig.Median)
}

func summarize(values []float64, counted []int) Summary {
	s := Summary{N: len(values), Outliers: []int{}, Included: append([]int{}, counted...)}
	if len(values) == 0 {
		return s
	}
	// NewSample takes ownership of its slice and sorts it.
	sample := benchmath.NewSample(slices.Clone(values), &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(sample, 0.95)
	s.Median, s.CILow, s.CIHigh, s.CIConf = sum.Center, sum.Lo, sum.Hi, sum.Confidence
	if math.IsInf(s.CILow, 0) || math.IsInf(s.CIHigh, 0) || math.IsNaN(s.CILow) {
		s.CILow, s.CIHigh, s.CIConf = s.Median, s.Median, 0
	}
	s.Min, s.Max = slices.Min(values), slices.Max(values)
	mean := 0.0
	for _, t := range values {
		mean += t
	}
	mean /= float64(len(values))
	if len(values) > 1 && mean > 0 {
		v := 0.0
		for _, t := range values {
			v += (t - mean) * (t - mean)
		}
		s.CV = math.Sqrt(v/float64(len(values)-1)) / mean
	}
	dev := make([]float64, len(values))
	for i, t := range values {
		dev[i] = math.Abs(t - s.Median)
	}
	mad := median(dev)
	for i, t := range values {
		off := math.Abs(t - s.Median)
		if mad > 0 && off/(1.4826*mad) > 3.5 && off > OutlierFloor*s.Median {
			s.Outliers = append(s.Outliers, counted[i])
		}
	}
	return s
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// OutlierFloor: a run nearer the median than this share of it is never
// an outlier, however tight the others are (a run 0.18% off the median of
// a 0.08%-CV benchmark is noise, not an outlier).
const OutlierFloor = 0.01

// ComputeScore sets the score and the run-level warnings.
func (r *Run) ComputeScore() {
	r.Score = nil
	logSum, n := 0.0, 0
	complete := len(r.Benchmarks) > 0
	for _, b := range r.Benchmarks {
		if !b.Valid || b.Ratio == nil {
			complete = false
			continue
		}
		logSum += math.Log(*b.Ratio)
		n++
	}
	if complete && n > 0 {
		s := 1000 * math.Exp(logSum/float64(n))
		r.Score = &s
	}
}

// GroupedWarnings lists each benchmark warning once, prefixed with the
// benchmarks it concerns ("every benchmark" when all), and then the run's
// own warnings: a kernel that forces the same fallback on every run says
// so in one line, not one per benchmark.
func (r *Run) GroupedWarnings() []string {
	var all []Warning
	for _, b := range r.Benchmarks {
		all = append(all, b.Warnings...)
	}
	return append(r.groupByText(all), WarningTexts(r.Warnings)...)
}

// groupByText says each text of ws once, with the benchmarks it concerns.
func (r *Run) groupByText(ws []Warning) []string {
	var order []string
	who := map[string][]string{}
	for _, b := range r.Benchmarks {
		for _, warn := range b.Warnings {
			if !slices.ContainsFunc(ws, func(w Warning) bool { return w.Text == warn.Text }) {
				continue
			}
			text := warn.Text
			if _, seen := who[text]; !seen {
				order = append(order, text)
			}
			if names := who[text]; len(names) == 0 || names[len(names)-1] != b.Name {
				who[text] = append(who[text], b.Name)
			}
		}
	}
	out := []string{}
	for _, text := range order {
		out = append(out, r.benchmarkNames(who[text])+": "+text)
	}
	return out
}

// FormatSeconds prints a time in the unit that suits it: µs, ms or s;
// "-" for none (0, or a time not measured).
func FormatSeconds(s float64) string {
	switch {
	case s == 0 || math.IsNaN(s) || math.IsInf(s, 0):
		return "-"
	case timeProblem(s) != "": // as written, not as a time: no 309 digits
		return fmt.Sprintf("%g s", s)
	case s < 0.001:
		return fmt.Sprintf("%.0f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return fmt.Sprintf("%.3f s", s)
}
