package results

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
)

// Measure is what a benchmark's figures are of: its name, its unit and
// which way is better. A benchmark is judged by its wall time in seconds,
// lower better, unless it names another measure: a number its program
// prints (Stockfish's nodes per second) or a score another tool computed
// (Geekbench's). Every view that says "faster", takes a ratio or colours
// a bar asks the measure which way is better (Gain), never assumes
// seconds.
type Measure struct {
	Name string `json:"name"`
	// Unit is one word, as the Go benchmark format wants it (bench.txt):
	// "s", "nodes/s", "score".
	Unit string `json:"unit"`
	// Better is HigherIsBetter or LowerIsBetter.
	Better string `json:"better"`
}

// Which way a measure is better.
const (
	HigherIsBetter = "higher"
	LowerIsBetter  = "lower"
)

// WallTime is the measure of a benchmark that names no other: its runs'
// wall time in seconds, lower is better.
var WallTime = Measure{Name: "wall time", Unit: "s", Better: LowerIsBetter}

// Higher reports whether higher values are better.
func (m Measure) Higher() bool { return m.Better == HigherIsBetter }

// Gain is how many times better b is than a in this measure: above 1 b
// is better, below 1 worse. ok is false unless both are positive finite
// numbers, so that no ratio or verdict is ever made of a value that is
// not one.
func (m Measure) Gain(a, b float64) (gain float64, ok bool) {
	if !positive(a) || !positive(b) {
		return 0, false
	}
	g := a / b
	if m.Higher() {
		g = b / a
	}
	return g, positive(g)
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// Format shows a value in the measure's unit: a time in µs, ms or s, any
// other value with four significant digits, or from 10,000 on with an SI
// prefix as benchstat writes it ("982k nodes/s"), and its unit.
func (m Measure) Format(v float64) string {
	if m.Unit == WallTime.Unit {
		return FormatSeconds(v)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	num := strconv.FormatFloat(v, 'g', 4, 64)
	if math.Abs(v) >= 1e4 {
		num = benchunit.Scale(v, benchunit.ClassOf(m.Unit))
	}
	return strings.TrimSpace(num + " " + m.Unit)
}

// Describe names the measure for a reader: "Nodes/second (nodes/s,
// higher is better)".
func (m Measure) Describe() string {
	return fmt.Sprintf("%s (%s, %s is better)", m.Name, m.Unit, m.Better)
}

// Measured is a benchmark's measure when it is not its wall time, with
// its reference value and the statistics of its runs' values (each run's
// RunRecord.Value).
type Measured struct {
	Measure
	// Reference is the measure's value on the reference machine; the
	// benchmark's ratio is how many times better its median is.
	Reference *float64 `json:"reference,omitempty"`
	Stats     Summary  `json:"stats"`
}

// Summary summarises a benchmark's counted runs in its measure's unit:
// Stats without the seconds (Stats, in run.json's median_s and the rest,
// stays the wall time of every benchmark). With no counted run (N is 0)
// there is no value: its JSON holds null for each.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	// CILow and CIHigh bound the median at 95% confidence (benchmath,
	// assuming nothing about the distribution); equal to the median when
	// there are too few runs for an interval (CIConf 0).
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	CIConf float64 `json:"ci_confidence"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	CV     float64 `json:"cv"`
	// Outliers and Included are indexes into the benchmark's runs, as in
	// Stats.
	Outliers []int `json:"outliers"`
	Included []int `json:"included"`
}

// MarshalJSON writes null for every value when no counted run completed.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	out := struct {
		plain
		Median *float64 `json:"median"`
		CILow  *float64 `json:"ci_low"`
		CIHigh *float64 `json:"ci_high"`
		Min    *float64 `json:"min"`
		Max    *float64 `json:"max"`
		CV     *float64 `json:"cv"`
	}{plain: plain(s)}
	if s.N > 0 {
		out.Median, out.CILow, out.CIHigh = &s.Median, &s.CILow, &s.CIHigh
		out.Min, out.Max, out.CV = &s.Min, &s.Max, &s.CV
	}
	return json.Marshal(out)
}

// summary is the wall time's statistics in the measure's terms.
func (s Stats) summary() Summary {
	return Summary{N: s.N, Median: s.MedianS, CILow: s.CILowS, CIHigh: s.CIHighS, CIConf: s.CIConf,
		Min: s.MinS, Max: s.MaxS, CV: s.CV, Outliers: s.Outliers, Included: s.Included}
}

// seconds is a summary of wall times as Stats.
func (s Summary) seconds() Stats {
	return Stats{N: s.N, MedianS: s.Median, CILowS: s.CILow, CIHighS: s.CIHigh, CIConf: s.CIConf,
		MinS: s.Min, MaxS: s.Max, CV: s.CV, Outliers: s.Outliers, Included: s.Included}
}

// Interval shows the summary's 95% interval in the measure's unit, "-"
// where none was computed.
func (s Summary) Interval(m Measure) string {
	if s.N == 0 || s.CIConf == 0 {
		return "-"
	}
	return m.Format(s.CILow) + " – " + m.Format(s.CIHigh)
}

// MedianText shows the median in the measure's unit, "-" without one.
func (s Summary) MedianText(m Measure) string {
	if s.N == 0 {
		return "-"
	}
	return m.Format(s.Median)
}

// Figures are what the benchmark is judged by: its measure and the
// statistics of its runs in it — its wall time unless it names another
// measure. Every view of a benchmark's result shows these.
func (b *Benchmark) Figures() (Measure, Summary) {
	if b.Measure != nil {
		return b.Measure.Measure, b.Measure.Stats
	}
	return WallTime, b.Stats.summary()
}

// figuresIn are the benchmark's statistics in the measure m: its own
// measure's, or its wall time's, which every benchmark keeps. ok is false
// when it has none in m (a score imported without a time).
func (b *Benchmark) figuresIn(m Measure) (Summary, bool) {
	switch {
	case b.Measure != nil && b.Measure.Measure == m:
		return b.Measure.Stats, b.Measure.Stats.N > 0
	case m == WallTime:
		return b.Stats.summary(), b.N > 0
	}
	return Summary{}, false
}

// valuesIn are the counted runs' values in the measure m, in the order of
// the runs (the runs its statistics in m are of).
func (b *Benchmark) valuesIn(m Measure) []float64 {
	var v []float64
	for _, r := range b.Runs {
		if x, ok := r.valueIn(m); ok && !r.Warmup && r.Error == "" {
			v = append(v, x)
		}
	}
	return v
}

// valueIn is the run's value in the measure m: its Value for a measure of
// its own, its wall time for WallTime. ok is false where the run has none
// in m, or what it has is not a figure of m (Measure.problem).
func (r *RunRecord) valueIn(m Measure) (float64, bool) {
	v, measured := r.rawIn(m)
	return v, measured && m.problem(v) == ""
}

// rawIn is the run's value in the measure m as written, and whether it
// was measured at all (a wall time not measured is NaN, a value absent).
func (r *RunRecord) rawIn(m Measure) (float64, bool) {
	if m != WallTime {
		if r.Value == nil {
			return 0, false
		}
		return *r.Value, true
	}
	return r.WallS, !math.IsNaN(r.WallS)
}

// notAFigure names the first of the run's figures — its value in the
// benchmark's measure m, which it must have, and its wall time where
// measured — that is not a figure, with its value and why; p is "" when
// every figure the run has is one.
func (r *RunRecord) notAFigure(m Measure) (what Measure, v float64, p string) {
	if v, measured := r.rawIn(m); !measured {
		return m, math.NaN(), "not measured"
	} else if p := m.problem(v); p != "" {
		return m, v, p
	}
	if v, measured := r.rawIn(WallTime); m != WallTime && measured {
		if p := timeProblem(v); p != "" {
			return WallTime, v, p
		}
	}
	return Measure{}, 0, ""
}

// FigureProblem is a run's figure that is not one, as its reason says
// it: which figure ("time", or the measure's name), its value as written
// with its unit, what it should have been ("a time", "a figure") and why
// it is not ("not positive").
type FigureProblem struct {
	Label, Raw, Noun, Why string
}

// NotAFigure is the first of the run's figures in the benchmark's measure
// m that is not one (see notAFigure); ok is false when every figure is
// one.
func (r *RunRecord) NotAFigure(m Measure) (p FigureProblem, ok bool) {
	what, v, why := r.notAFigure(m)
	if why == "" {
		return FigureProblem{}, false
	}
	return FigureProblem{Label: what.label(), Raw: what.raw(v), Noun: what.noun(), Why: why}, true
}

// label names the measure in a reason's text: "time" for the wall time,
// else its own name.
func (m Measure) label() string {
	if m == WallTime {
		return "time"
	}
	return m.Name
}

// The bounds of a figure that is not a time (a rate, a score): a positive
// finite number no tool corepin reads writes beyond. Outside them a figure
// came from a damaged or hand-made file.
const (
	MinFigure = 1e-9
	MaxFigure = 1e15
)

// problem says why v is not a figure of the measure that can be counted
// or related to another, "" when it is one: a time must be a time
// (timeProblem), any other figure a finite number within MinFigure and
// MaxFigure.
func (m Measure) problem(v float64) string {
	if m.Unit == WallTime.Unit {
		return timeProblem(v)
	}
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "not a number"
	case v <= 0:
		return "not positive"
	case v < MinFigure:
		return "below 1e-9"
	case v > MaxFigure:
		return "above 1e15"
	}
	return ""
}

// noun is what a figure of the measure is, for a reason's text: "a time",
// "a figure".
func (m Measure) noun() string {
	if m.Unit == WallTime.Unit {
		return "a time"
	}
	return "a figure"
}

// raw shows a figure as written, with its unit, for a reason that says it
// is not one (Format would read it as a time or scale it).
func (m Measure) raw(v float64) string {
	return strings.TrimSpace(fmtF(v) + " " + m.Unit)
}

// MeasureText says what the benchmark is judged by, as the page says it: "wall time" or the measure with
// its unit and direction.
func (b *Benchmark) MeasureText() string {
	m, _ := b.Figures()
	if m == WallTime {
		return m.Name
	}
	return m.Describe()
}

// reference is the benchmark's reference value in its measure, 0 when
// it has none.
func (b *Benchmark) reference() float64 {
	if b.Measure != nil {
		if b.Measure.Reference != nil {
			return *b.Measure.Reference
		}
		return 0
	}
	return b.ReferenceS
}
