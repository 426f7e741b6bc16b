package results

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"corepin.dev/corepin/launch"
)

// Summarize computes the statistics of the counted runs, the ratio to the
// reference, validity and the warnings a person needs.
func (b *Benchmark) Summarize() {
	var times []float64
	var counted []int
	b.Valid = true
	for i, r := range b.Runs {
		if r.Warmup {
			continue
		}
		b.Valid = b.Valid && r.Valid
		if r.Error == "" {
			times = append(times, r.WallS)
			counted = append(counted, i)
		}
	}
	b.Valid = b.Valid && len(counted) > 0
	b.Stats = summarize(times, counted)
	b.Ratio = nil
	if b.ReferenceS > 0 && b.MedianS > 0 {
		r := b.ReferenceS / b.MedianS
		b.Ratio = &r
	}
	b.Warnings = b.warnings(times)
}

func summarize(times []float64, counted []int) Stats {
	s := Stats{N: len(times), Outliers: []int{}}
	if len(times) == 0 {
		return s
	}
	// NewSample takes ownership of its slice and sorts it.
	sample := benchmath.NewSample(slices.Clone(times), &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(sample, 0.95)
	s.MedianS, s.CILowS, s.CIHighS, s.CIConf = sum.Center, sum.Lo, sum.Hi, sum.Confidence
	if math.IsInf(s.CILowS, 0) || math.IsInf(s.CIHighS, 0) || math.IsNaN(s.CILowS) {
		s.CILowS, s.CIHighS, s.CIConf = s.MedianS, s.MedianS, 0
	}
	s.MinS, s.MaxS = slices.Min(times), slices.Max(times)
	mean := 0.0
	for _, t := range times {
		mean += t
	}
	mean /= float64(len(times))
	if len(times) > 1 && mean > 0 {
		v := 0.0
		for _, t := range times {
			v += (t - mean) * (t - mean)
		}
		s.CV = math.Sqrt(v/float64(len(times)-1)) / mean
	}
	dev := make([]float64, len(times))
	for i, t := range times {
		dev[i] = math.Abs(t - s.MedianS)
	}
	mad := median(dev)
	for i, t := range times {
		if mad > 0 && math.Abs(t-s.MedianS)/(1.4826*mad) > 3.5 {
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

// Thresholds of the warnings.
const (
	SpreadWarn    = 0.05 // coefficient of variation
	FirstRunWarn  = 0.10 // first counted run slower than the median by this much
	FreqWarn      = 0.10 // frequency range within a run, relative to its maximum
	ResidencyWarn = 0.99 // share of running samples on the target
)

func (b *Benchmark) warnings(times []float64) []Warning {
	w := []Warning{}
	add := func(format string, a ...any) { w = append(w, Warning{Run: NoRun, Text: fmt.Sprintf(format, a...)}) }
	addRun := func(run int, format string, a ...any) {
		w = append(w, Warning{Run: run, Text: fmt.Sprintf(format, a...)})
	}
	if !b.Valid {
		add("output check failed or a run did not finish: the benchmark is invalid")
	}
	if b.N > 1 && b.CV > SpreadWarn {
		add("spread %.1f%% (coefficient of variation) is above %.0f%%: rerun with more runs on a quieter machine", 100*b.CV, 100*SpreadWarn)
	}
	if len(times) > 2 && times[0] > b.MedianS*(1+FirstRunWarn) {
		add("the first run took %.0f%% longer than the median: caches or frequency were not warm; use --warmup", 100*(times[0]/b.MedianS-1))
	}
	if len(b.Outliers) > 0 {
		add("%d outlier run(s) by median absolute deviation: %v", len(b.Outliers), b.Outliers)
	}
	for _, r := range b.Runs {
		if r.Warmup {
			continue
		}
		t := r.Telemetry
		if t.FreqMinMHz != nil && t.FreqMaxMHz != nil && *t.FreqMaxMHz > 0 && (*t.FreqMaxMHz-*t.FreqMinMHz) / *t.FreqMaxMHz > FreqWarn {
			addRun(r.Index, "the target's frequency varied %.0f%% (%.0f-%.0f MHz)", 100*(*t.FreqMaxMHz-*t.FreqMinMHz) / *t.FreqMaxMHz, *t.FreqMinMHz, *t.FreqMaxMHz)
		}
		for _, n := range t.Notes {
			addRun(r.Index, "telemetry: %s", n)
		}
		sch := r.Scheduling
		if sch == nil {
			continue
		}
		if sch.Watch != nil {
			for _, e := range sch.Watch.Errors {
				addRun(r.Index, "watcher: %s", e)
			}
		}
		if sch.Watch != nil && sch.Watch.OnTargetRatio != nil && *sch.Watch.OnTargetRatio < ResidencyWarn {
			addRun(r.Index, "the work was on the target for only %.1f%% of its running samples", 100**sch.Watch.OnTargetRatio)
		}
		if msg := weakerStep(sch); msg != "" {
			addRun(r.Index, "%s", msg)
		}
		switch {
		case sch.Restore.OK || !sch.Restore.Done:
		case sch.Start == launch.StartFork:
			// Nothing is left changed: the thread was ended instead.
			addRun(r.Index, "corepin's thread that started the command could not be put back, so it was ended (%s)", sch.Restore.Failure())
		case sch.Start == launch.StartThread:
			addRun(r.Index, "the work's thread could not be put back, so it was ended (%s)", sch.Restore.Failure())
		default:
			addRun(r.Index, "the scheduling restore failed (%s)", sch.Restore.Failure())
		}
	}
	return dedupe(w)
}

// weakerStep says when the ladder settled on a step below the first one
// that was tried (skipped steps, such as realtime when not allowed, do not
// count as asked).
func weakerStep(rep interface{ AcceptedStepInfo() (int, int, string) }) string {
	accepted, firstTried, name := rep.AcceptedStepInfo()
	switch {
	case firstTried == 0:
		return ""
	case accepted == 0:
		return fmt.Sprintf("no step of ladder %s held", name)
	case accepted > firstTried:
		return fmt.Sprintf("ladder %s settled on step %d, below the first step tried (%d)", name, accepted, firstTried)
	}
	return ""
}

// dedupe keeps the first of identical warnings that differ only by run.
func dedupe(w []Warning) []Warning {
	out := []Warning{}
	seen := map[string]bool{}
	for _, s := range w {
		if !seen[s.Text] {
			seen[s.Text] = true
			out = append(out, s)
		}
	}
	return out
}

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
	var order []string
	who := map[string][]string{}
	for _, b := range r.Benchmarks {
		for _, warn := range b.Warnings {
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
		names := strings.Join(who[text], ", ")
		if len(who[text]) == len(r.Benchmarks) && len(r.Benchmarks) > 1 {
			names = "every benchmark"
		}
		out = append(out, names+": "+text)
	}
	return append(out, r.Warnings...)
}

// FormatSeconds prints a time in the unit that suits it: µs, ms or s.
func FormatSeconds(s float64) string {
	switch {
	case s == 0:
		return "-"
	case s < 0.001:
		return fmt.Sprintf("%.0f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return fmt.Sprintf("%.3f s", s)
}
