package importers

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/results"
)

// fuzzImporter feeds a tool's parser anything: it never panics, and a
// file it accepts makes a run whose every figure is a finite number that
// is not negative, whose statistics are finite, and which run.json holds.
func fuzzImporter(f *testing.F, tool string, seeds ...string) {
	for _, s := range seeds {
		data, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		run, _, err := Parse(tool, data)
		if err != nil {
			if _, ok := err.(*FormatError); !ok {
				t.Fatalf("an error that is not a FormatError: %v", err)
			}
			return
		}
		for _, b := range run.Benchmarks {
			m, fig := b.Figures()
			for _, r := range b.Runs {
				if v, ok := value(m, r); ok && (v < 0 || math.IsInf(v, 0)) {
					t.Fatalf("%s: a figure %v", b.Name, v)
				}
			}
			for _, v := range []float64{fig.Median, fig.CILow, fig.CIHigh, fig.CV, b.MedianS} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s: a statistic %v", b.Name, v)
				}
			}
		}
		if _, err := json.Marshal(run); err != nil {
			t.Fatalf("run.json cannot hold it: %v", err)
		}
	})
}

func value(m results.Measure, r results.RunRecord) (float64, bool) {
	if m == results.WallTime {
		return r.WallS, r.Timed()
	}
	if r.Value == nil {
		return 0, false
	}
	return *r.Value, true
}

func FuzzHyperfine(f *testing.F) {
	fuzzImporter(f, results.KindHyperfine, "hyperfine-1.15.json", "hyperfine-1.18.json")
}

func FuzzPyperf(f *testing.F) {
	fuzzImporter(f, results.KindPyperf, "pyperf-loops.json", "pyperf-memory.json")
}

func FuzzGeekbench(f *testing.F) {
	fuzzImporter(f, results.KindGeekbench, "geekbench.json")
}

// A command line splits into words that, quoted again, split the same.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{`sleep 0.1`, `sh -c 'exit 1'`, `a "b \" c" d\ e`, `'unfinished`, `x\`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, ok := splitCommand(s)
		if !ok {
			return
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		again, ok := splitCommand(strings.Join(quoted, " "))
		if !ok || strings.Join(again, "\x00") != strings.Join(words, "\x00") || len(again) != len(words) {
			t.Fatalf("%q split as %q, quoted again as %q", s, words, again)
		}
	})
}
