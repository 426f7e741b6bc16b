package spec

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares what a parser read of testdata/NAME, as JSON (a text as
// it is), with testdata/NAME.golden, or rewrites it under -update.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if text, ok := v.(string); ok {
		got = []byte(text) // a text is kept as it is
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from %s (run with -update to accept):\n%s", name, path, got)
	}
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseRSF(t *testing.T) {
	for _, name := range []string{"rate.rsf", "speed2026.rsf"} {
		r, err := ParseRSF(read(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden(t, name, r)
	}
}

// The raw file and the CSV of one run say the same of its iterations,
// but for what only the raw file has (the reference, derived from the
// CSV's ratio and time; rc, submit, the rate's start and end; the
// errors).
func TestCSVAgreesWithRSF(t *testing.T) {
	raw, err := ParseRSF(read(t, "rate.rsf"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := ParseCSV(read(t, "rate.csv"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "rate.csv", table)
	if len(raw.Iterations) != len(table.Iterations) || *raw.BaseMean != *table.BaseMean || raw.Runmode != table.Runmode || raw.Suite != table.Suite || raw.Lognum != table.Lognum {
		t.Fatalf("raw %d iterations, mean %v, %s %s %s; CSV %d, %v, %s %s %s", len(raw.Iterations), *raw.BaseMean, raw.Runmode, raw.Suite, raw.Lognum,
			len(table.Iterations), *table.BaseMean, table.Runmode, table.Suite, table.Lognum)
	}
	for i, a := range raw.Iterations {
		b := table.Iterations[i]
		same := a.Name() == b.Name() && a.Index == b.Index && (a.ReportedS == nil || a.Number == b.Number) && a.Copies == b.Copies && a.Valid == b.Valid &&
			a.Selected == b.Selected && eq(a.ReportedS, b.ReportedS) && eq(a.Ratio, b.Ratio)
		if !same {
			t.Errorf("iteration %d: raw %+v, CSV %+v", i, a, b)
		}
		if a.ReferenceS != nil && b.ReferenceS != nil && !near(*a.ReferenceS, *b.ReferenceS, 1e-5) {
			t.Errorf("iteration %d: reference %v, derived from the CSV %v", i, *a.ReferenceS, *b.ReferenceS)
		}
	}
}

func eq(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func near(a, b, rel float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= rel*max(a, -a)
}

func TestParseCommandFile(t *testing.T) {
	f, err := ParseCommandFile(read(t, "speccmds.cmd"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "speccmds.cmd", f)
	if v := f.Env[3]; v.Name != "SPACED" || v.Value != "a value  with spaces" {
		t.Errorf("-E kept %+v", v)
	}
	if len(f.Copies) != 2 || f.Copies[0].Bind != "1" || f.Copies[1].Bind != "0" || !f.Redirect {
		t.Errorf("copies %+v, redirect %v", f.Copies, f.Redirect)
	}
}

func TestParseTimings(t *testing.T) {
	tm, err := ParseTimings(read(t, "speccmds.out"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "speccmds.out", tm)
	if tm.Started[1].Command != "it's quoted" || tm.Finished[1].RC != 256 || *tm.ExitRC != 1 || tm.TickNS != 1000 {
		t.Errorf("read %+v", tm)
	}
}

func TestDiffs(t *testing.T) {
	f, err := ParseCommandFile(read(t, "compare.cmd"))
	if err != nil {
		t.Fatal(err)
	}
	diffs, skipped, err := Diffs(f)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.cmd", struct {
		Diffs   []Diff
		Skipped []string
	}{diffs, skipped})
	// Tolerances turn on off-by-one and blank lines skipped, as in
	// specdiff; --cw alone compares words, not numbers.
	if d := diffs[0]; !d.Numeric || !d.Obiwan || !d.CW || *d.AbsTol != 1e-7 || *d.RelTol != 1e-4 || d.Output != "inp.out" {
		t.Errorf("the tolerant diff: %+v", d)
	}
	if d := diffs[1]; d.Numeric || d.Obiwan || !d.CW {
		t.Errorf("the --cw diff: %+v", d)
	}
}

func TestParseReftime(t *testing.T) {
	refs, err := ParseReftime(read(t, "reftime"))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := ReferenceFor(refs, "refspeed"); !ok || s != 4721 {
		t.Errorf("refspeed: %v %v", s, ok)
	}
	if _, ok := ReferenceFor(refs, "train"); ok {
		t.Error("a size the file does not have has a reference")
	}
}

// Bad files are refused with the line that is wrong.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		parse func([]byte) error
		text  string
		want  string
	}{
		{"rsf", rsf, "hello world\n", "line 1: not a raw result line"},
		{"rsf", rsf, "", "not a SPEC raw result file"},
		{"rsf", rsf, "spec.cpu2017.a: 1\nspec.cpu2026.b: 2\n", `line 2: suite "cpu2026" after "cpu2017"`},
		{"rsf", rsf, "spec.cpu2017.results.505_mcf_r.base.x.ratio: 1\n", `line 1: results key`},
		{"rsf", rsf, "spec.cpu2017.results.505_mcf_r.base.000.ratio: lots\n", `505.mcf_r base iteration 0: ratio: "lots" is not a number`},
		{"rsf", rsf, "spec.cpu2017.results.505_mcf_r.base.000.benchmark: a/b\n", `is not a benchmark or tuning name`},
		{"rsf", rsf, "spec.cpu2017.basemean: NaN\n", `basemean: "NaN" is not a number`},
		{"csv", csvParse, "Benchmark,x\n", "not SPEC's CSV report"},
		{"csv", csvParse, "valid,1\n", "no Full Results Table"},
		{"csv", csvParse, "valid,1\n\"Full Results Table\"\nBenchmark,\"Base # Copies\",\"Base Run Time\",\"Base Rate\",\"Base Selected\",\"Base Status\"\n505.mcf_r,2,soon,1,1,S\n", `line 4: 505.mcf_r Base run time: "soon" is not a number`},
		{"cmd", cmdParse, "-C\n", "line 1: -C: missing argument"},
		{"cmd", cmdParse, "-C \n", "line 1: -C: missing argument"},
		{"cmd", cmdParse, "-C/spec/run\n", "line 1: -C: the option and its argument are not separated"},
		{"cmd", cmdParse, "-x foo\n", "line 1: unknown option -x"},
		{"cmd", cmdParse, "-o out\n", "line 1: options without a command"},
		{"cmd", cmdParse, "# nothing\n", "no command"},
		{"out", outParse, "child started: 0, 99999999999999999999, 0, pid=1, 'x'\n", "line 1:"},
		{"out", outParse, "timer ticks over every 1000 ns\n", `no "child started" line`},
		{"diff", diffParse, "-C /r\n/spec/bin/specdiff -m --reltol lots a b\n", `--reltol "lots" is not a tolerance`},
		{"diff", diffParse, "-C /r\n/spec/bin/specdiff -m --whatever a b\n", "unknown option --whatever"},
		{"diff", diffParse, "-C /r\n/spec/bin/specdiff -m a\n", "1 files"},
		{"diff", diffParse, "-C /r\ncmp a b\n", "no specdiff command"},
		{"reftime", reftimeParse, "refrate ref\n", "want SIZE CLASS SECONDS"},
		{"reftime", reftimeParse, "refrate ref -3\n", "is not a reference time"},
	} {
		err := c.parse([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want %q", c.name, c.text, err, c.want)
		}
	}
}

func rsf(b []byte) error          { _, err := ParseRSF(b); return err }
func csvParse(b []byte) error     { _, err := ParseCSV(b); return err }
func cmdParse(b []byte) error     { _, err := ParseCommandFile(b); return err }
func outParse(b []byte) error     { _, err := ParseTimings(b); return err }
func reftimeParse(b []byte) error { _, err := ParseReftime(b); return err }
func diffParse(b []byte) error {
	f, err := ParseCommandFile(b)
	if err != nil {
		return err
	}
	_, _, err = Diffs(f)
	return err
}
