package results

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// The kinds of work a run measured (Run.Kind).
const (
	KindBuiltin = "built-in" // corepin's own workloads
	KindSuite   = "suite"    // the commands of a suite file
	KindNative  = "native"   // an app's work, through the native library
)

// The kinds of an imported run: the tool whose result file it was read
// from (Run.Source.Tool).
const (
	KindSpec      = "spec"      // SPEC CPU's runcpu (.rsf or .csv)
	KindHyperfine = "hyperfine" // hyperfine --export-json
	KindPyperf    = "pyperf"    // pyperf's JSON
	KindGeekbench = "geekbench" // Geekbench's --export-json
)

// Kind says what the run measured: corepin's built-in workloads, the
// commands of a suite file, or an app's own work recorded by the native
// library (whose benchmarks are of kind "native"; an older library wrote
// "builtin" under corepin_version "native"), or, for an imported run, the
// tool whose file it was read from.
func (r *Run) Kind() string {
	switch {
	case r.Source != nil:
		return r.Source.Tool
	case strings.HasPrefix(r.Host.Corepin, "native") || slices.ContainsFunc(r.Benchmarks, func(b Benchmark) bool { return b.Kind == "native" }):
		return KindNative
	case r.Options.Suite != "":
		return KindSuite
	}
	return KindBuiltin
}

// A runDifference is one thing two runs differ in that makes their times
// incomparable: what, and its value in each run.
type runDifference struct {
	what, a, b string
}

// measuredDifferences lists what two runs measured differently: the
// workloads' sizes (corepin's own, quick or full: an imported run has
// another tool's), the kind of work, the suite (or the native app) and
// the isolation. Times
// of runs that differ in one of these are times of different work, and no
// ratio or test between them means anything. This is the one rule of
// compare and merge; where the work ran (host, CPU, target) is not in it:
// compare adds that, merge puts machines side by side on purpose.
//
// Runs of commands (a suite's, or hyperfine's and pyperf's imported) are
// of one kind of work whichever tool ran them: whether two of their
// benchmarks are the same work is judged benchmark by benchmark, by the
// command line (sameWork).
func measuredDifferences(a, b *Run) []runDifference {
	var diff []runDifference
	differ := func(what, x, y string) {
		if x != y {
			diff = append(diff, runDifference{what, x, y})
		}
	}
	size := func(r *Run) string {
		if r.Options.Quick {
			return "quick"
		}
		return "full"
	}
	if !a.Imported() && !b.Imported() { // another tool's sizes are not corepin's
		differ("sizes", size(a), size(b))
	}
	if !commandKinds[a.Kind()] || !commandKinds[b.Kind()] {
		differ("kind", a.Kind(), b.Kind())
	}
	if a.Kind() == KindNative && b.Kind() == KindNative {
		differ("app", a.Options.App, b.Options.App) // two apps' work of one name is not one work
	}
	if a.Kind() == KindSuite && b.Kind() == KindSuite && a.Options.SuiteSHA256 != "" && b.Options.SuiteSHA256 != "" {
		differ("suite", suiteIdentity(a), suiteIdentity(b))
	}
	if !a.Imported() && !b.Imported() { // an imported run's isolation is not recorded
		differ("isolation", a.Options.Isolation, b.Options.Isolation)
	}
	return diff
}

// commandKinds are the kinds of runs whose benchmarks are commands, each
// with its command line: a suite's, and hyperfine's and pyperf's.
var commandKinds = map[string]bool{KindSuite: true, KindHyperfine: true, KindPyperf: true}

// crossKind reports whether two runs are of different kinds whose
// benchmarks are matched by their command lines, not their names.
func crossKind(a, b *Run) bool {
	return a.Kind() != b.Kind() && commandKinds[a.Kind()] && commandKinds[b.Kind()]
}

// sameWork reports whether two benchmarks of runs of different kinds ran
// the same command line: the same program by its name (a suite's
// "stockfish" is hyperfine's "/usr/games/stockfish") and the same
// arguments.
func sameWork(a, b *Benchmark) bool {
	if len(a.Command) == 0 || len(a.Command) != len(b.Command) {
		return false
	}
	return filepath.Base(a.Command[0]) == filepath.Base(b.Command[0]) && slices.Equal(a.Command[1:], b.Command[1:])
}

// counterpart is the benchmark of run in that b is compared with: the one
// of the same name, or, between runs of different kinds of commands, the
// one that ran the same command line; nil when there is none.
func counterpart(in *Run, b *Benchmark, cross bool) *Benchmark {
	for i := range in.Benchmarks {
		if in.Benchmarks[i].Name == b.Name {
			return &in.Benchmarks[i]
		}
	}
	if !cross {
		return nil
	}
	for i := range in.Benchmarks {
		if sameWork(&in.Benchmarks[i], b) {
			return &in.Benchmarks[i]
		}
	}
	return nil
}

// suiteIdentity names a suite file by its name and the start of its hash.
func suiteIdentity(r *Run) string {
	sum := r.Options.SuiteSHA256
	if len(sum) > 12 {
		sum = sum[:12]
	}
	return fmt.Sprintf("%s (sha256 %s…)", filepath.Base(r.Options.Suite), sum)
}

// definitionDiffers says why one benchmark of two suite runs cannot be
// compared when the runs do not both carry the suite's hash (a folder
// from an older corepin): the benchmark's own definition is compared
// instead, and where one of them has none, the suite's identity is
// unknown. "" when the definitions agree or the hashes settled it.
func definitionDiffers(ra, rb *Run, a, b *Benchmark, la, lb string) string {
	if crossKind(ra, rb) {
		switch {
		case len(a.Command) == 0 || len(b.Command) == 0:
			return "no command line to tell whether it is the same work (" + ra.Kind() + " in " + la + ", " + rb.Kind() + " in " + lb + ")"
		case !sameWork(a, b):
			return fmt.Sprintf("it ran another command: %q in %s, %q in %s", a.Command, la, b.Command, lb)
		}
		return ""
	}
	if ra.Kind() != KindSuite || rb.Kind() != KindSuite || (ra.Options.SuiteSHA256 != "" && rb.Options.SuiteSHA256 != "") {
		return ""
	}
	if len(a.Command) == 0 || len(b.Command) == 0 {
		return "suite identity unknown (a run has no suite hash and the benchmark no command)"
	}
	if !slices.Equal(a.Command, b.Command) || a.Kind != b.Kind {
		return fmt.Sprintf("its definition differs: %s %q in %s, %s %q in %s", a.Kind, a.Command, la, b.Kind, b.Command, lb)
	}
	return ""
}

// withheld says why a benchmark's verdict between two runs is withheld,
// "" when it is not: a benchmark without a completed run, with runs that
// did not complete or an invalid one, a definition that differs, or runs
// that differ in what they measured (diff). la and lb name the two runs
// in the reason ("the old run", "[2]").
func withheld(ra, rb *Run, a, b *Benchmark, diff []string, la, lb string) string {
	for _, s := range []struct {
		which string
		b     *Benchmark
	}{{la, a}, {lb, b}} {
		_, fig := s.b.Figures()
		switch b := s.b; {
		case fig.N == 0:
			return "no completed run in " + s.which
		case b.CompletedRuns < b.PlannedRuns:
			return fmt.Sprintf("%d of %d runs completed in %s", b.CompletedRuns, b.PlannedRuns, s.which)
		case !b.Valid:
			return "invalid in " + s.which
		}
		if p := s.b.figuresProblem(s.which); p != "" {
			return p
		}
	}
	if len(diff) > 0 {
		return "the runs differ in " + strings.Join(diffWhat(diff), ", ")
	}
	return definitionDiffers(ra, rb, a, b, la, lb)
}

func diffWhat(diff []string) []string {
	var out []string
	for _, d := range diff {
		what, _, _ := strings.Cut(d, ":")
		out = append(out, what)
	}
	return out
}

// ratioIn is b's median over a's in the measure m, when both have one
// that is a positive finite number (no counted run, or a file that says
// 0, is no figure).
func ratioIn(m Measure, a, b *Benchmark) (float64, bool) {
	fa, okA := a.figuresIn(m)
	fb, okB := b.figuresIn(m)
	if !okA || !okB || !positive(fa.Median) || !positive(fb.Median) {
		return 0, false
	}
	r := fb.Median / fa.Median
	return r, positive(r)
}

// measureOf is the measure two benchmarks are compared in: their own
// where they share it; their wall time, which every run keeps, where
// they do not (the same command measured by hyperfine and by a suite
// that reads a rate from its output), said in a note; nil benchmarks
// (a run without it) take the other's.
func measureOf(a, b *Benchmark) (Measure, []string) {
	switch {
	case a == nil && b == nil:
		return WallTime, []string{}
	case a == nil:
		m, _ := b.Figures()
		return m, []string{}
	case b == nil:
		m, _ := a.Figures()
		return m, []string{}
	}
	ma, _ := a.Figures()
	mb, _ := b.Figures()
	if ma == mb {
		return ma, []string{}
	}
	if _, ok := a.figuresIn(WallTime); ok {
		if _, ok := b.figuresIn(WallTime); ok {
			return WallTime, []string{fmt.Sprintf("compared by wall time: one run judges it by %s, the other by %s", ma.Describe(), mb.Describe())}
		}
	}
	return ma, []string{}
}

// noMeasureInCommon says why two benchmarks have no figure to compare:
// each is judged by its own measure and one has no wall time (a score
// imported alone), or a run has no completed value.
func noMeasureInCommon(a, b *Benchmark, la, lb string) string {
	ma, _ := a.Figures()
	mb, _ := b.Figures()
	return fmt.Sprintf("no measure in common: %s in %s, %s in %s", ma.Describe(), la, mb.Describe(), lb)
}

// The bounds of a time that corepin relates to another. No clock that
// corepin, or a tool it imports from, reads resolves less than a
// nanosecond, and no benchmark run lasts 10⁹ s (32 years). Between them
// the ratio of two times and the spread of a benchmark's runs are finite
// numbers; a figure outside them came from a damaged or hand-made file,
// and a ratio or a test of it would be a verdict on nothing.
const (
	MinTimeS = 1e-9
	MaxTimeS = 1e9
)

// timeProblem says why s seconds is not a time that can be counted or
// related to another, "" when it is one.
func timeProblem(s float64) string {
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return "not a number"
	case s <= 0:
		return "not positive"
	case s < MinTimeS:
		return "below 1 ns, finer than any clock reads"
	case s > MaxTimeS:
		return "above 10⁹ s (32 years)"
	}
	return ""
}

// figuresProblem says why a benchmark's figures cannot be related to
// another's, "" when they can: its median in its measure, or a figure of
// one of its counted runs (what the U test reads: its value, and its wall
// time where measured), is not one (Measure.problem). A finished run.json
// is read as written, so this is asked of every benchmark before a ratio
// or a verdict is made of it. in names the run in the reason ("the new
// run", "[2]").
func (b *Benchmark) figuresProblem(in string) string {
	m, fig := b.Figures()
	if fig.N == 0 {
		return ""
	}
	if p := m.problem(fig.Median); p != "" {
		return fmt.Sprintf("the median in %s, %s, is not %s: %s", in, m.raw(fig.Median), m.noun(), p)
	}
	if b.N > 0 && m != WallTime {
		if p := timeProblem(b.MedianS); p != "" {
			return fmt.Sprintf("the median time in %s, %s, is not a time: %s", in, WallTime.raw(b.MedianS), p)
		}
	}
	for _, r := range b.Runs {
		if r.Warmup || r.Error != "" {
			continue
		}
		if what, v, p := r.notAFigure(m); p != "" {
			return fmt.Sprintf("the %s of run %d in %s, %s, is not %s: %s", what.label(), r.Index, in, what.raw(v), what.noun(), p)
		}
	}
	return ""
}
