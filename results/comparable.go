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
// workloads' sizes, the kind of work, the suite (or the native app) and
// the isolation. Times
// of runs that differ in one of these are times of different work, and no
// ratio or test between them means anything. This is the one rule of
// compare and merge; where the work ran (host, CPU, target) is not in it:
// compare adds that, merge puts machines side by side on purpose.
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
	differ("sizes", size(a), size(b))
	differ("kind", a.Kind(), b.Kind())
	if a.Kind() == KindNative && b.Kind() == KindNative {
		differ("app", a.Options.App, b.Options.App) // two apps' work of one name is not one work
	}
	if a.Kind() == KindSuite && b.Kind() == KindSuite && a.Options.SuiteSHA256 != "" && b.Options.SuiteSHA256 != "" {
		differ("suite", suiteIdentity(a), suiteIdentity(b))
	}
	differ("isolation", a.Options.Isolation, b.Options.Isolation)
	return diff
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
		switch b := s.b; {
		case b.N == 0:
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

// timeRatio is b's median over a's, when both are times: a median that
// is not one (no counted run, or a file that says 0, 1e-300 or 1e308) is
// no time, and no ratio of it is made.
func timeRatio(a, b *Benchmark) (float64, bool) {
	if a.N == 0 || b.N == 0 || timeProblem(a.MedianS) != "" || timeProblem(b.MedianS) != "" {
		return 0, false
	}
	return b.MedianS / a.MedianS, true
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
// another's, "" when they can: its median, or the time of one of its
// counted runs (what the U test reads), is not a time (timeProblem). A
// finished run.json is read as written, so this is asked of every
// benchmark before a ratio or a verdict is made of it. in names the run
// in the reason ("the new run", "[2]").
func (b *Benchmark) figuresProblem(in string) string {
	if b.N == 0 {
		return ""
	}
	if p := timeProblem(b.MedianS); p != "" {
		return fmt.Sprintf("the median in %s, %s s, is not a time: %s", in, fmtF(b.MedianS), p)
	}
	for _, r := range b.Runs {
		if r.Warmup || r.Error != "" {
			continue
		}
		if p := timeProblem(r.WallS); p != "" {
			return fmt.Sprintf("the time of run %d in %s, %s s, is not a time: %s", r.Index, in, fmtF(r.WallS), p)
		}
	}
	return ""
}
