package results

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"corepin.dev/corepin/results/evidence"
)

// Summarize computes the statistics of the counted runs (their wall time
// and, where the benchmark has a measure of its own, its values), the
// ratio to the reference, validity and the warnings a person needs.
func (b *Benchmark) Summarize() {
	var times []float64
	var counted []int
	notFigures := []Warning{}
	runsValid := true
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
		if what, v, p := r.notAFigure(m); p != "" {
			notFigures = append(notFigures, Warning{Run: r.Index, Kind: KindNotATime,
				Text: fmt.Sprintf("a run's %s, %s, is not %s (%s): it is left out of the statistics, and the benchmark is invalid", what.label(), what.raw(v), what.noun(), p)})
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
	b.Valid = runsValid && fig.N > 0 && len(notFigures) == 0 && b.CompletedRuns >= b.PlannedRuns
	b.Ratio = nil
	if r, ok := b.ratio(); ok {
		b.Ratio = &r
	}
	b.Warnings = append(notFigures, b.warnings(times, runsValid && len(notFigures) > 0)...)
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

// Thresholds of the warnings.
const (
	SpreadWarn    = 0.05 // coefficient of variation
	FirstRunWarn  = 0.10 // first counted run slower than the median by this much
	FreqWarn      = 0.10 // frequency range within a run, relative to its maximum
	ResidencyWarn = 0.99 // share of running samples on the target
	// WatcherCostWarn is the share of one CPU the watcher's own thread
	// may use before a run says so: the watcher's own threshold, which
	// its KeepUp.TooExpensive records.
	WatcherCostWarn = evidence.CPUShareWarn
	// OutlierFloor: a run nearer the median than this share of it is
	// never an outlier, however tight the others are (a run 0.18% off
	// the median of a 0.08%-CV benchmark is noise, not an outlier).
	OutlierFloor = 0.01
)

// warnings are the benchmark's warnings; notTimes says that what made it
// invalid is only runs whose time was not one, which their own warnings
// say instead of the general one.
func (b *Benchmark) warnings(times []float64, notTimes bool) []Warning {
	w := []Warning{}
	add := func(kind, format string, a ...any) {
		w = append(w, Warning{Run: NoRun, Kind: kind, Text: fmt.Sprintf(format, a...)})
	}
	addRun := func(run int, kind, format string, a ...any) {
		w = append(w, Warning{Run: run, Kind: kind, Text: fmt.Sprintf(format, a...)})
	}
	switch {
	case b.CompletedRuns < b.PlannedRuns:
		add(KindUnfinished, "%d of %d planned runs completed: the benchmark is invalid", b.CompletedRuns, b.PlannedRuns)
	case !b.Valid && !notTimes:
		add(KindInvalidRuns, "%s: the benchmark is invalid", b.WhyInvalid())
	}
	if _, fig := b.Figures(); fig.N > 1 && fig.CV > SpreadWarn {
		cv := fig.CV
		w = append(w, Warning{Run: NoRun, Kind: KindSpread, Value: &cv,
			Text: fmt.Sprintf("spread %.1f%% (coefficient of variation) is above %.0f%%: rerun with more runs on a quieter machine", 100*cv, 100*SpreadWarn)})
	}
	if len(times) > 2 && times[0] > b.MedianS*(1+FirstRunWarn) {
		first := b.Runs[b.Included[0]]
		longer := 100 * (times[0]/b.MedianS - 1)
		switch {
		case first.Slowed():
			add(KindFirstRun, "the first run took %.0f%% longer than the median, and was slowed: %s", longer, first.SlowedBy)
		default:
			add(KindFirstRun, "the first run took %.0f%% longer than the median: the work's caches or memory were likely not warm, or the core was slow then; use --warmup", longer)
		}
	}
	if len(b.Outliers) > 0 {
		add(KindOutliers, "%d outlier run(s) by median absolute deviation: %v%s", len(b.Outliers), b.Outliers, b.explainOutliers())
	}
	// The runs the statistics are of is said once, in the first of the
	// two lines of dropped runs.
	of := "no run is in the statistics; "
	if len(b.Included) > 0 {
		of = fmt.Sprintf("the statistics are of runs %v; ", b.Included)
	}
	slow, shared := b.dropped()
	if slow > 0 {
		n := float64(slow)
		w = append(w, Warning{Run: NoRun, Kind: KindSpeedGate, Value: &n,
			Text: fmt.Sprintf("%s%d run(s) called slowed were dropped by --speed-gate and re-run (kept in dropped_runs)", of, slow)})
		of = ""
	}
	if shared > 0 {
		n := float64(shared)
		w = append(w, Warning{Run: NoRun, Kind: KindSharedRerun, Value: &n,
			Text: fmt.Sprintf("%s%d run(s) whose target CPU was shared were dropped and run again (kept in dropped_runs)", of, shared)})
	}
	for _, r := range b.Runs {
		if r.Warmup {
			continue
		}
		if r.Slowed() {
			v, _ := r.OwnSpeed()
			w = append(w, Warning{Run: r.Index, Kind: KindSpeed, Value: &v, Text: r.SpeedText()})
		}
		t := r.Telemetry
		if t.FreqMinMHz != nil && t.FreqMaxMHz != nil && *t.FreqMaxMHz > 0 && (*t.FreqMaxMHz-*t.FreqMinMHz) / *t.FreqMaxMHz > FreqWarn {
			addRun(r.Index, KindFrequency, "the target's frequency varied %.0f%% (%.0f-%.0f MHz)", 100*(*t.FreqMaxMHz-*t.FreqMinMHz) / *t.FreqMaxMHz, *t.FreqMinMHz, *t.FreqMaxMHz)
		}
		for _, n := range t.Notes {
			addRun(r.Index, KindTelemetry, "telemetry: %s", n)
		}
		for _, warn := range r.Warnings {
			warn.Run = r.Index
			w = append(w, warn)
		}
		sch := r.Scheduling
		if sch == nil {
			continue
		}
		if sch.Watch != nil {
			for _, e := range sch.Watch.Errors {
				addRun(r.Index, KindWatcher, "watcher: %s", e)
			}
			k := sch.Watch.KeepUp
			if k.Unvouched {
				addRun(r.Index, KindWatcher, "the watcher missed %d of %d ticks (%.0f%%, at %s): residency cannot be vouched for",
					k.Missed, k.Expected, 100*k.MissedShare, k.Priority)
			}
			// The watcher's own cost matters where it shares the target;
			// kept off it, the figure stays in run.json alone.
			if k.TooExpensive && (sch.Watch.WatcherCPUs.IsEmpty() || !sch.Watch.WatcherCPUs.Intersect(sch.Readback.CPUs).IsEmpty()) {
				share := k.CPUShare
				w = append(w, Warning{Run: r.Index, Kind: KindWatcherCost, Value: &share,
					Text: fmt.Sprintf("the watcher used %.1f%% of a CPU (above %.0f%%): use a longer --watch period", 100*share, 100*WatcherCostWarn)})
			}
		}
		if sch.Watch != nil && sch.Watch.OnTargetRatio != nil && *sch.Watch.OnTargetRatio < ResidencyWarn {
			addRun(r.Index, KindResidency, "the work was on the target for only %.1f%% of its running samples", 100**sch.Watch.OnTargetRatio)
		}
		if msg := weakerStep(sch); msg != "" && !aboveUnsupported(sch) {
			addRun(r.Index, KindLadder, "%s", msg)
		}
		switch {
		case sch.Restore.OK || !sch.Restore.Done:
		case sch.Start == evidence.StartFork:
			// Nothing is left changed: the thread was ended instead.
			addRun(r.Index, KindRestore, "corepin's thread that started the command could not be put back, so it was ended (%s)", sch.Restore.Failure())
		case sch.Start == evidence.StartThread:
			addRun(r.Index, KindRestore, "the work's thread could not be put back, so it was ended (%s)", sch.Restore.Failure())
		default:
			addRun(r.Index, KindRestore, "the scheduling restore failed (%s)", sch.Restore.Failure())
		}
	}
	return dedupe(w)
}

// explainOutliers says which slow outliers were called slowed, by what
// was measured during them.
func (b *Benchmark) explainOutliers() string {
	var runs, speeds []string
	for _, i := range b.Outliers {
		r := b.Runs[i]
		if v, _ := r.OwnSpeed(); r.Slowed() && r.WallS > b.MedianS {
			runs, speeds = append(runs, fmt.Sprint(r.Index)), append(speeds, fmt.Sprintf("%.2f", v))
		}
	}
	switch {
	case len(runs) == 0:
		return ""
	case len(runs) == len(b.Outliers):
		return fmt.Sprintf("; each was slowed (at %s of its best run's speed; the run's warning says by what)", strings.Join(speeds, ", "))
	}
	return fmt.Sprintf("; run(s) %s were slowed (at %s of the best run's speed; each run's warning says by what), not the others", strings.Join(runs, ", "), strings.Join(speeds, ", "))
}

// weakerStep says when the ladder settled on a step below the first one
// that was tried (skipped steps, such as realtime when not allowed, do not
// count as asked).
func weakerStep(sch *evidence.Scheduling) string {
	accepted, name := sch.Ladder.AcceptedStep, sch.Ladder.Name
	firstTried := 0
	for _, st := range sch.Ladder.Steps {
		if st.Skipped == "" {
			firstTried = st.Step
			break
		}
	}
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

// aboveUnsupported reports whether every step tried above the accepted
// one failed because the kernel lacks what it asks (uclamp on a kernel
// built without it): nothing a person can do on this machine, which the
// summary's scheduling line and caps say, not a warning on every run.
func aboveUnsupported(sch *evidence.Scheduling) bool {
	tried := 0
	for _, st := range sch.Ladder.Steps {
		if st.Step >= sch.Ladder.AcceptedStep || st.Skipped != "" {
			continue
		}
		tried++
		if st.Errno != "EOPNOTSUPP" && st.Errno != "ENOSYS" {
			return false
		}
	}
	return tried > 0 && sch.Ladder.AcceptedStep > 0
}

// dedupe keeps the first of identical warnings that differ only by run;
// a kind the terminal sums up keeps every run, which its line counts.
func dedupe(w []Warning) []Warning {
	out := []Warning{}
	seen := map[string]bool{}
	for _, s := range w {
		if _, summed := summaries[s.Kind]; summed && s.Value != nil {
			out = append(out, s)
			continue
		}
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
	var all []Warning
	for _, b := range r.Benchmarks {
		all = append(all, b.Warnings...)
	}
	return append(r.groupByText(all), r.Warnings...)
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

// dropped counts the benchmark's dropped runs by why they were dropped:
// the speed gate drops runs that completed, valid; a run is dropped
// invalid only when its target CPU was shared.
func (b *Benchmark) dropped() (slow, shared int) {
	for _, r := range b.DroppedRuns {
		if r.Valid {
			slow++
		} else {
			shared++
		}
	}
	return slow, shared
}
