package suite

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The metric is the number of the last line that matches, on the stream
// it names; a line without a number, or none, is no value.
func TestMetricValue(t *testing.T) {
	dir := t.TempDir()
	out := stderrRun(t, dir, "info nps 5\nNodes/second    : 981982\nNodes/second    : 1000\n")
	os.WriteFile(out.Stdout, []byte("rate: 2.5e3 ops/s\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gb.json"), []byte(`{"score": 1704, "multicore_score": 3100.5, "sections": []}`), 0o644)
	for _, tt := range []struct {
		m    Metric
		want float64 // NaN: no value
	}{
		{Metric{Stderr: true, Regex: `Nodes/second\s*:\s*(\d+)`}, 1000},
		{Metric{Stdout: true, Regex: `Nodes/second\s*:\s*(\d+)`}, math.NaN()},
		{Metric{Stdout: true, Stderr: true, Regex: `rate: (\S+)`}, 2500},
		{Metric{Stderr: true, Regex: `info (nps) `}, math.NaN()}, // not a number
		{Metric{File: "gb.json", Geekbench: GeekbenchSingle}, 1704},
		{Metric{File: "gb.json", Geekbench: GeekbenchMulti}, 3100.5},
		{Metric{File: "none.json", Geekbench: GeekbenchSingle}, math.NaN()},
	} {
		tt.m.Name = "m"
		v, err := tt.m.Value(out)
		if math.IsNaN(tt.want) != (err != nil) || (err == nil && v != tt.want) {
			t.Errorf("%+v: %v, %v; want %v", tt.m, v, err, tt.want)
		}
	}
}

// What a suite says of a metric, an input, a program or a check that
// reads standard error is checked as it is read, each error naming it.
func TestRealSuiteKeysAreChecked(t *testing.T) {
	head := "[settings]\nwork = true\n[[benchmark]]\nname = \"b\"\ncmd = \"true\"\n"
	for _, tt := range []struct{ text, want string }{
		{"  [benchmark.metric]\n  stderr = true\n  regex = 'x'\n  name = \"n\"\n  unit = \"u\"\n  better = \"higher\"\n", "groups"},
		{"  [benchmark.metric]\n  stderr = true\n  regex = '(x)'\n  name = \"n\"\n  unit = \"two words\"\n  better = \"higher\"\n", "unit"},
		{"  [benchmark.metric]\n  stderr = true\n  regex = '(x)'\n  name = \"n\"\n  unit = \"u\"\n  better = \"up\"\n", "better"},
		{"  [benchmark.metric]\n  geekbench = \"score\"\n  stdout = true\n", "file"},
		{"reference_seconds = 1\n  [benchmark.metric]\n  stderr = true\n  regex = '(x)'\n  name = \"n\"\n  unit = \"u\"\n  better = \"lower\"\n", "reference_seconds"},
		{"  [[benchmark.input]]\n  file = \"../x\"\n  text_bytes = 10\n", "inside"},
		{"  [[benchmark.input]]\n  file = \"x\"\n  text_bytes = 10\n  c_functions = 2\n", "exactly one"},
		{"  [[benchmark.check]]\n  stderr = true\n  signature = '(\\d+)'\n", "version"},
		{"version = [\"v\"]\n  [[benchmark.check]]\n  stderr = true\n  signature = '\\d+'\n", "groups"},
		{"  [[benchmark.check]]\n  stderr = true\n  regex = 'x'\n  known = { a = \"b\" }\n", "known"},
		{"  [[benchmark.check]]\n  file = \"a\"\n  sha256_of = \"/etc/passwd\"\n", "sha256_of"},
		{"package = \"two words\"\n", "package"},
		{"cpus = \"all\"\n", "cpus"},
	} {
		_, err := Parse("s.toml", []byte(head+tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error about %s", tt.text, err, tt.want)
		}
	}
	if _, err := Parse("s.toml", []byte("[[benchmark]]\nname = \"b\"\ncmd = \"true\"\n  [[benchmark.input]]\n  file = \"x\"\n  text_bytes = 1\n")); err == nil || !strings.Contains(err.Error(), "work = true") {
		t.Errorf("inputs without a work folder: %v", err)
	}
}

// Metric extraction reads any output without failing: a value it gives
// is a finite number, not negative.
func FuzzMetric(f *testing.F) {
	f.Add("Nodes/second    : 981982\n", `Nodes/second\s*:\s*(\d+)`)
	f.Add("encoded 100 frames, 25.5 fps\n", `([0-9.]+) fps`)
	f.Add("x: 1e400\nx: -3\nx: NaN\n", `x: (\S+)`)
	f.Fuzz(func(t *testing.T, output, expr string) {
		if oneGroup("regex", expr) != nil {
			return
		}
		dir := t.TempDir()
		out := stderrRun(t, dir, output)
		m := Metric{Stderr: true, Regex: expr, Name: "m"}
		v, err := m.Value(out)
		if err == nil && (v < 0 || math.IsInf(v, 0) || math.IsNaN(v)) {
			t.Fatalf("%q on %q gave %v", expr, output, v)
		}
	})
}
