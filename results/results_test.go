package results

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
)

func bench(name string, ref float64, times ...float64) Benchmark {
	b := Benchmark{Name: name, Kind: "builtin", ReferenceS: ref}
	b.Runs = append(b.Runs, RunRecord{Index: 0, Warmup: true, WallS: 9, Valid: true})
	for i, t := range times {
		b.Runs = append(b.Runs, RunRecord{Index: i + 1, WallS: t, Valid: true})
	}
	b.Summarize()
	return b
}

func TestSummarize(t *testing.T) {
	b := bench("fib", 2, 1.00, 1.02, 0.98, 1.01, 0.99, 1.00, 1.03, 0.97, 1.00, 1.00)
	if b.N != 10 || b.MedianS != 1.00 || b.MinS != 0.97 || b.MaxS != 1.03 || !b.Valid {
		t.Errorf("stats %+v", b.Stats)
	}
	if !(b.CILowS <= b.MedianS && b.MedianS <= b.CIHighS) || b.CIConf < 0.95 {
		t.Errorf("confidence interval %v-%v at %v", b.CILowS, b.CIHighS, b.CIConf)
	}
	if *b.Ratio != 2 || b.CV > 0.05 || len(b.Warnings) != 0 {
		t.Errorf("ratio %v, cv %v, warnings %v", *b.Ratio, b.CV, b.Warnings)
	}
}

func TestScore(t *testing.T) {
	r := &Run{Benchmarks: []Benchmark{bench("a", 2, 1, 1, 1), bench("b", 0.5, 1, 1, 1)}}
	r.ComputeScore()
	if r.Score == nil || math.Abs(*r.Score-1000) > 1e-9 {
		t.Errorf("score %v, want 1000 (geometric mean of 2 and 0.5)", r.Score)
	}
	r.Benchmarks[1].Valid = false
	r.ComputeScore()
	if r.Score != nil {
		t.Error("a score with an invalid benchmark")
	}
}

func TestBenchFormatReadsBack(t *testing.T) {
	r := &Run{Host: Host{CPUModel: "AMD EPYC"}, Benchmarks: []Benchmark{bench("fib", 1, 0.5, 0.6), bench("505.mcf", 1, 2)}}
	var buf bytes.Buffer
	if err := r.WriteBenchFormat(&buf); err != nil {
		t.Fatal(err)
	}
	reader := benchfmt.NewReader(bytes.NewReader(buf.Bytes()), "bench.txt")
	var names []string
	var ns []float64
	for reader.Scan() {
		if res, ok := reader.Result().(*benchfmt.Result); ok {
			names = append(names, string(res.Name.Full()))
			ns = append(ns, res.Values[0].Value)
		}
		if err, ok := reader.Result().(*benchfmt.SyntaxError); ok {
			t.Fatal(err)
		}
	}
	if strings.Join(names, " ") != "Fib Fib 505.mcf" || ns[0] != 0.5 { // benchfmt reads ns/op as sec/op
		t.Errorf("benchfmt read %v %v from:\n%s", names, ns, buf.String())
	}
}

func TestSaveLoad(t *testing.T) {
	f, err := Create(t.TempDir(), "host/with:odd", time.Date(2026, 11, 30, 15, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(f.Path) != "20261130-150000-host_with_odd" {
		t.Errorf("folder %s", f.Path)
	}
	r := &Run{Schema: Schema, State: StateFinished, Benchmarks: []Benchmark{bench("fib", 1, 1, 1.1)}}
	if err := f.Save(r); err != nil {
		t.Fatal(err)
	}
	back, err := Load(f.Path)
	if err != nil || back.Benchmarks[0].MedianS != r.Benchmarks[0].MedianS {
		t.Fatalf("load: %v %+v", err, back)
	}
	entries, _ := os.ReadDir(f.Path)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}
	os.WriteFile(filepath.Join(t.TempDir(), "x.json"), []byte(`{"schema":"other"}`), 0o644)
	if _, err := Load(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("loading nothing succeeded")
	}
}

func TestCreateUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		dir := t.TempDir()
		file := filepath.Join(dir, "file")
		os.WriteFile(file, nil, 0o644)
		if _, err := Create(filepath.Join(file, "sub"), "h", time.Now()); err == nil {
			t.Error("a folder under a file was created")
		}
		return
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o500)
	if _, err := Create(filepath.Join(dir, "out"), "h", time.Now()); err == nil {
		t.Error("an unwritable folder was accepted")
	}
}

func TestCompare(t *testing.T) {
	old := &Run{Benchmarks: []Benchmark{
		bench("same", 1, 1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01),
		bench("faster", 1, 2.00, 2.02, 1.98, 2.01, 1.99, 2.00, 2.03, 1.97),
		bench("gone", 1, 1),
	}}
	new := &Run{Benchmarks: []Benchmark{
		bench("same", 1, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.00, 1.01),
		bench("faster", 1, 1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01),
		bench("new", 1, 1),
	}}
	old.ComputeScore()
	new.ComputeScore()
	c := Compare(old, new)
	byName := map[string]Delta{}
	for _, d := range c.Deltas {
		byName[d.Name] = d
	}
	if d := byName["faster"]; !d.Significant || math.Abs(*d.Change+0.5) > 0.01 {
		t.Errorf("faster: %+v", d)
	}
	if d := byName["same"]; d.Significant {
		t.Errorf("same: %+v", d)
	}
	if byName["gone"].New != nil || byName["new"].Old != nil || len(c.Deltas) != 4 {
		t.Errorf("deltas %+v", c.Deltas)
	}
}

// A run 0.18% off the median of a benchmark whose other runs agree to
// 0.01% is within the relative floor: not an outlier. One 5% off is.
func TestOutlierFloor(t *testing.T) {
	times := []float64{1.0000, 1.0001, 0.9999, 1.0000, 1.0018, 1.0001}
	if s := summarize(times, []int{0, 1, 2, 3, 4, 5}); len(s.Outliers) != 0 {
		t.Errorf("outliers %v in runs within 0.2%% of each other", s.Outliers)
	}
	times[4] = 1.05
	if s := summarize(times, []int{0, 1, 2, 3, 4, 5}); len(s.Outliers) != 1 || s.Outliers[0] != 4 {
		t.Errorf("outliers %v, want run 4 (5%% off)", s.Outliers)
	}
}

// Warnings are typed: grouping goes by the text, so a text that itself
// begins with "run " is never cut, and the run is said once where a
// warning is shown.
func TestWarningsAreGroupedByText(t *testing.T) {
	r := &Run{Benchmarks: []Benchmark{
		{Name: "a", Warnings: []Warning{{Run: 1, Text: "watcher: lost a thread"}, {Run: NoRun, Text: "run times vary: rerun"}}},
		{Name: "b", Warnings: []Warning{{Run: 4, Text: "watcher: lost a thread"}}},
	}}
	got := r.GroupedWarnings()
	want := []string{"every benchmark: watcher: lost a thread", "a: run times vary: rerun"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("grouped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	share := 0.25
	for _, w := range []Warning{{Run: 3, Text: "a: b"}, {Run: NoRun, Text: "run times vary: rerun"}, {Run: 0, Text: "x"},
		{Run: 2, Kind: KindShared, Text: "others took 25%", Value: &share}, {Run: NoRun, Kind: KindSpread, Text: "spread"}} {
		data, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		var back Warning
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		same := back.Run == w.Run && back.Kind == w.Kind && back.Text == w.Text && (back.Value == nil) == (w.Value == nil)
		if !same && w.Run != NoRun {
			t.Errorf("%+v read back from %s as %+v", w, data, back)
		}
		if w.Kind == "" && data[0] != '"' {
			t.Errorf("a warning without a kind was written as %s, not as the string older readers expect", data)
		}
	}
}

// TestSummarizeLeavesOutTimesThatAreNot: a run whose time is not a time
// (1e300 makes the spread infinite, -1 and NaN mean nothing) is left out
// of every figure and makes the benchmark invalid (the judge says so);
// the run is still written, as JSON.
func TestSummarizeLeavesOutTimesThatAreNot(t *testing.T) {
	for _, odd := range []float64{1e300, -1, math.NaN(), 1e-300} {
		b := bench("fib", 1, 1, odd, 1.01, 0.99)
		if b.Valid || b.N != 3 || b.MedianS != 1 || b.MaxS != 1.01 || math.IsInf(b.CV, 0) || math.IsNaN(b.CV) {
			t.Errorf("a run of %g s: valid %v, stats %+v", odd, b.Valid, b.Stats)
		}
		if !math.IsNaN(odd) { // encoding/json writes no NaN, which nothing could have read
			if _, err := json.Marshal(b); err != nil {
				t.Errorf("a run of %g s: %v", odd, err)
			}
		}
	}
	if b := bench("fib", 1e300, 1, 1.01, 0.99); b.Ratio != nil {
		t.Errorf("a reference of 1e300 s gave the ratio %v", *b.Ratio)
	}
}
