package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mergeFixtures are two runs of the same job on one machine with
// different --cpu: run --quick --only fib,json --cpu 0, then --cpu 1.
func mergeFixtures(t *testing.T) ([]*Run, []string) {
	t.Helper()
	var runs []*Run
	names := []string{"cpu0", "cpu1"}
	for _, n := range names {
		r, err := Load(filepath.Join("testdata", "merge", n))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs, names
}

func TestMergeText(t *testing.T) {
	runs, names := mergeFixtures(t)
	m := Merged(runs, names)
	var b bytes.Buffer
	if err := m.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "merge.golden")
	if *update {
		os.WriteFile(golden, b.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("merge text differs from %s (run with -update to accept):\n%s", golden, b.String())
	}
}

func TestMergeModel(t *testing.T) {
	runs, names := mergeFixtures(t)
	// A benchmark only on the second machine, and one only on the first.
	runs[1].Benchmarks = append(runs[1].Benchmarks, Benchmark{Name: "extra", Stats: Stats{N: 6, MedianS: 1}, Valid: true})
	runs[0].Benchmarks = runs[0].Benchmarks[:1]
	m := Merged(runs, names)
	if len(m.Machines) != 2 || m.Machines[0].Target.ExactCPU != 0 || m.Machines[1].Target.ExactCPU != 1 {
		t.Fatalf("machines %+v", m.Machines)
	}
	if m.Machines[1].Scheduling == "no scheduling report" || m.Machines[0].Topology == "" {
		t.Errorf("evidence missing: %+v", m.Machines[1])
	}
	byName := map[string]MergeRow{}
	for _, r := range m.Benchmarks {
		byName[r.Name] = r
	}
	fib := byName["fib"]
	if fib.Cells[0] == nil || fib.Cells[1] == nil || fib.Cells[1].Relative == nil ||
		*fib.Cells[1].Relative != fib.Cells[1].MedianS/fib.Cells[0].MedianS || fib.Cells[0].Relative != nil {
		t.Errorf("fib: %+v %+v", fib.Cells[0], fib.Cells[1])
	}
	if c := byName["json"].Cells; c[0] != nil || c[1] == nil || c[1].Relative != nil {
		t.Errorf("json only on the second machine: %+v", c)
	}
	if c := byName["extra"].Cells; c[0] != nil || c[1] == nil {
		t.Errorf("extra: %+v", c)
	}
	var b bytes.Buffer
	if err := m.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 1+4 { // fib twice, json once, extra once
		t.Errorf("csv: %v, %d rows\n%s", err, len(rows), b.String())
	}
}

// suiteRun is a finished run of a suite file with one benchmark, fib,
// whose command is cmd; sum is the suite's hash ("" as an older corepin
// wrote it).
func suiteRun(path, sum string, cmd ...string) *Run {
	b := bench("fib", 1, 1, 1.01, 0.99, 1, 1.02, 0.98)
	b.Kind, b.Command = "command", cmd
	r := finished(b)
	r.Options.Suite, r.Options.SuiteSHA256 = path, sum
	return r
}

// TestMergeWithholdsWhatCannotBeCompared: a cell is related to the first
// machine's only where compare relates two runs; otherwise it has no
// relative figure and no test, and the notes say why.
func TestMergeWithholdsWhatCannotBeCompared(t *testing.T) {
	slower := func() *Run { return finished(bench("fib", 1, 2, 2.02, 1.98, 2, 2.04, 1.96)) }
	full := slower()
	quick := finished(bench("fib", 1, 1, 1.01, 0.99, 1, 1.02, 0.98))
	quick.Options.Quick = true
	native := slower()
	native.Host.Corepin = "native"
	// The native library of today: benchmarks of kind native, the app named.
	app := func(name string) *Run {
		r := slower()
		r.Host.Corepin, r.Options.App, r.Options.Isolation = "native 0.1.0", name, "thread"
		r.Benchmarks[0].Kind = "native"
		return r
	}
	thread := slower()
	thread.Options.Isolation = "thread"
	invalid := slower()
	invalid.Benchmarks[0].Valid = false
	zero := finished(Benchmark{Name: "fib", Valid: true, Stats: Stats{N: 6, MedianS: 0}, Ratio: new(float64)})
	tests := []struct {
		name   string
		a, b   *Run
		reason string // in the cell's Withheld; "" for a pair that is compared
		note   string // in the notes
	}{
		{"the same job", quick, func() *Run { r := slower(); r.Options.Quick = true; return r }(), "", ""},
		{"quick against full", quick, full, "the runs differ in sizes", "[2] is not compared with [1]: the runs differ in sizes: quick on [1], full on [2]"},
		{"built-in against native", slower(), native, "the runs differ in kind", "kind: built-in on [1], native on [2]"},
		{"one app's native runs", app("game"), app("game"), "", ""},
		{"two apps' native runs", app("game"), app("camera"), "the runs differ in app", "app: game on [1], camera on [2]"},
		{"a native run against a built-in one in thread isolation", func() *Run { r := slower(); r.Options.Isolation = "thread"; return r }(), app("game"),
			"the runs differ in kind", "kind: built-in on [1], native on [2]"},
		{"process against thread isolation", slower(), thread, "the runs differ in isolation", "isolation: process on [1], thread on [2]"},
		{"two suites with a benchmark of one name", suiteRun("/a/lab.toml", "aaaaaaaaaaaaaaaa", "./fib"), suiteRun("/b/lab.toml", "bbbbbbbbbbbbbbbb", "./fib"),
			"the runs differ in suite", "suite: lab.toml (sha256 aaaaaaaaaaaa…) on [1], lab.toml (sha256 bbbbbbbbbbbb…) on [2]"},
		{"one suite in two places", suiteRun("/a/lab.toml", "aaaaaaaaaaaaaaaa", "./fib"), suiteRun("/b/lab.toml", "aaaaaaaaaaaaaaaa", "./fib"), "", ""},
		{"older folders, the same command", suiteRun("/a/lab.toml", "", "./fib", "30"), suiteRun("/b/lab.toml", "", "./fib", "30"), "", ""},
		{"older folders, other commands", suiteRun("/a/lab.toml", "", "./fib", "30"), suiteRun("/a/lab.toml", "", "./fib", "40"),
			`its definition differs: command ["./fib" "30"] in [1], command ["./fib" "40"] in [2]`, "[2] fib is not compared with [1]: its definition differs"},
		{"older folders without commands", suiteRun("/a/lab.toml", ""), suiteRun("/a/lab.toml", ""), "suite identity unknown", "suite identity unknown"},
		{"an invalid benchmark", slower(), invalid, "invalid in [2]", "[2] fib is not compared with [1]: invalid in [2]"},
		{"a median of 0", slower(), zero, "the median in [2], 0 s, is not a time: not positive", "[2] fib is not compared with [1]: the median in [2], 0 s, is not a time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Merged([]*Run{tt.a, tt.b}, []string{"a", "b"})
			c := m.Benchmarks[0].Cells[1]
			var text bytes.Buffer
			if err := m.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(c.Withheld, tt.reason) || (tt.reason == "") != (c.Withheld == "") {
				t.Errorf("withheld %q, want %q", c.Withheld, tt.reason)
			}
			if tt.note != "" && !strings.Contains(text.String(), tt.note) {
				t.Errorf("the text lacks %q:\n%s", tt.note, text.String())
			}
			compared := tt.reason == ""
			if (c.Relative != nil) != compared || (c.P != nil) != compared || (c.Significant && !compared) {
				t.Errorf("relative %v, p %v, significant %v; want them only for a pair that is compared", c.Relative, c.P, c.Significant)
			}
			if !compared && strings.Contains(text.String(), "×") {
				t.Errorf("a relative figure in the text:\n%s", text.String())
			}
			if tt.reason != "" && !strings.Contains(text.String(), "withheld") {
				t.Errorf("the table does not say the cell is withheld:\n%s", text.String())
			}
		})
	}
	// A median that is not positive is no time: no ratio to a reference
	// either, whatever the file says.
	if c := Merged([]*Run{zero}, []string{"zero"}).Benchmarks[0].Cells[0]; c.Ratio != nil {
		t.Errorf("a median of 0 has the ratio %v", *c.Ratio)
	}
	// compare judges by the same rule, and names where the runs ran too.
	for _, pair := range [][2]*Run{{quick, full}, {slower(), native}, {slower(), thread},
		{suiteRun("/a/lab.toml", "aaaa", "./fib"), suiteRun("/b/lab.toml", "bbbb", "./fib")}} {
		if d := Compare(pair[0], pair[1]).Deltas[0]; d.Withheld == "" || d.Change != nil || d.P != nil {
			t.Errorf("compare: %+v", d)
		}
	}
	if d := Compare(suiteRun("/a/lab.toml", "aaaa", "./fib"), suiteRun("/b/lab.toml", "aaaa", "./fib")).Deltas[0]; d.Withheld != "" || d.Change == nil {
		t.Errorf("compare of one suite in two places: %+v", d)
	}
}

// LoadEach names each run for its folder and refuses a folder given twice,
// also as the folder and its run.json, before loading anything.
func TestLoadEachRefusesAFolderTwice(t *testing.T) {
	a, b := filepath.Join("testdata", "merge", "cpu0"), filepath.Join("testdata", "merge", "cpu1")
	runs, names, err := LoadEach([]string{a, b})
	if err != nil || len(runs) != 2 || strings.Join(names, ",") != "cpu0,cpu1" {
		t.Fatalf("LoadEach(%s, %s) = %d runs, names %v, %v", a, b, len(runs), names, err)
	}
	for _, again := range []string{a, filepath.Join(a, "run.json"), a + "/"} {
		_, _, err := LoadEach([]string{a, b, again})
		var same *SameFolderError
		if !errors.As(err, &same) || same.First != a || same.Again != again {
			t.Errorf("LoadEach with %s again: %v, want a SameFolderError naming %s and %s", again, err, a, again)
		}
	}
}
