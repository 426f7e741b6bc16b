package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

var nodesPerSecond = Measure{Name: "Nodes/second", Unit: "nodes/s", Better: HigherIsBetter}

// rateBench is a benchmark judged by a rate its output printed: each run
// took wall seconds and read the value.
func rateBench(name string, values ...float64) Benchmark {
	b := Benchmark{Name: name, Kind: "command", Command: []string{"stockfish", "bench"},
		Measure: &Measured{Measure: nodesPerSecond, Reference: fptr(1e6)}, PlannedRuns: len(values)}
	for i, v := range values {
		b.Runs = append(b.Runs, RunRecord{Index: i, WallS: 3e6 / v, Value: fptr(v), Valid: true})
	}
	b.Summarize()
	return b
}

func TestMeasureStatisticsAndRatio(t *testing.T) {
	b := rateBench("stockfish", 1.0e6, 1.2e6, 1.1e6)
	m, fig := b.Figures()
	if m != nodesPerSecond || fig.N != 3 || fig.Median != 1.1e6 || fig.Min != 1e6 || fig.Max != 1.2e6 {
		t.Fatalf("figures %v %+v", m, fig)
	}
	// The wall time is kept beside: its median is of the same runs.
	if b.N != 3 || math.Abs(b.MedianS-3/1.1) > 1e-9 || !b.Valid {
		t.Errorf("wall time %+v, valid %v", b.Stats, b.Valid)
	}
	// A rate 10% above its reference is 1.1 times better, not 0.91.
	if b.Ratio == nil || math.Abs(*b.Ratio-1.1) > 1e-9 {
		t.Errorf("ratio %v, want 1.1", b.Ratio)
	}
	if got := m.Format(fig.Median); got != "1.100M nodes/s" {
		t.Errorf("formatted %q", got)
	}
}

// A run whose value could not be read is no figure: the benchmark is
// invalid, as one whose time is missing.
func TestMeasureWithoutValueIsInvalid(t *testing.T) {
	b := rateBench("stockfish", 1e6, 1e6)
	b.Runs[1].Value = nil
	b.Summarize()
	if _, fig := b.Figures(); fig.N != 1 {
		t.Errorf("n %d, want 1", fig.N)
	}
	b.Runs[0].Value = nil
	b.Summarize()
	if b.Valid {
		t.Error("a benchmark without a value in its measure is valid")
	}
}

// scoreRun is a run of scores another tool computed, without wall time.
func scoreRun(scale float64) *Run {
	r := &Run{Schema: Schema, State: StateFinished, Source: &Source{Tool: KindGeekbench}}
	score := Measure{Name: "score", Unit: "score", Better: HigherIsBetter}
	for _, name := range []string{"Single-Core", "File Compression"} {
		b := Benchmark{Name: name, Kind: KindGeekbench, Measure: &Measured{Measure: score}, PlannedRuns: 6}
		for i := range 6 {
			v := scale * (1500 + float64(i))
			b.Runs = append(b.Runs, RunRecord{Index: i, WallS: math.NaN(), Value: &v, Valid: true})
		}
		b.Summarize()
		r.Benchmarks = append(r.Benchmarks, b)
	}
	return r
}

// Scores 10% higher compare as 10% faster, not slower; merge says the
// same.
func TestHigherScoresCompareAsFaster(t *testing.T) {
	old, new := scoreRun(1), scoreRun(1.1)
	c := Compare(old, new)
	for _, d := range c.Deltas {
		if d.Withheld != "" || d.Change == nil || math.Abs(*d.Change-0.1) > 1e-3 || d.Verdict() != VerdictFaster {
			t.Errorf("%s: withheld %q, change %v, verdict %q", d.Name, d.Withheld, d.Change, d.Verdict())
		}
	}
	back := Compare(new, old)
	if v := back.Deltas[0].Verdict(); v != VerdictSlower {
		t.Errorf("10%% lower scores: %q", v)
	}
	var text bytes.Buffer
	c.WriteText(&text)
	if !strings.Contains(text.String(), "+10.0% ↑") || !strings.Contains(text.String(), "1650 score") {
		t.Errorf("text:\n%s", text.String())
	}
	m := Merged([]*Run{old, new}, []string{"a", "b"})
	if cell := m.Benchmarks[0].Cells[1]; cell.Verdict() != VerdictFaster || cell.Relative == nil || math.Abs(*cell.Relative-1.1) > 1e-3 {
		t.Errorf("merge cell %+v, verdict %q", cell, cell.Verdict())
	}
}

// A score without a wall time has null times in run.json, never 0, and
// reads back as not measured.
func TestUnmeasuredWallTimeIsNull(t *testing.T) {
	r := scoreRun(1)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"wall_s":0`) || !strings.Contains(string(data), `"wall_s":null`) || !strings.Contains(string(data), `"median_s":null`) {
		t.Errorf("run.json: %s", data)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	b := back.Benchmarks[0]
	if b.Runs[0].Timed() || b.N != 0 || b.Measure.Stats.N != 6 || b.Measure.Stats.Median != 1502.5 {
		t.Errorf("read back: timed %v, n %d, figures %+v", b.Runs[0].Timed(), b.N, b.Measure.Stats)
	}
}

// summary.csv and bench.txt say what a benchmark is judged by: bench.txt
// as benchfmt's unit metadata, which benchstat reads.
func TestMeasureInSummaryAndBenchFormat(t *testing.T) {
	r := &Run{Schema: Schema, State: StateFinished, Benchmarks: []Benchmark{rateBench("stockfish", 1e6, 1.2e6, 1.1e6)}}
	var sum bytes.Buffer
	r.WriteSummaryCSV(&sum)
	rows, err := csv.NewReader(&sum).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]string{}
	for i, h := range rows[0] {
		col[h] = rows[1][i]
	}
	if col["measure"] != "Nodes/second" || col["unit"] != "nodes/s" || col["better"] != "higher" || col["median"] != "1.1e+06" || col["median_s"] == "" {
		t.Errorf("summary.csv: %v", col)
	}
	var bench bytes.Buffer
	r.WriteBenchFormat(&bench)
	rd := benchfmt.NewReader(&bench, "bench.txt")
	var values []string
	for rd.Scan() {
		if res, ok := rd.Result().(*benchfmt.Result); ok {
			for _, v := range res.Values {
				values = append(values, v.Unit)
			}
		}
	}
	if rd.Err() != nil {
		t.Fatal(rd.Err())
	}
	if u := rd.Units().Get("nodes/s", "better"); u == nil || u.Value != "higher" {
		t.Errorf("bench.txt has no better=higher for nodes/s:\n%s", bench.String())
	}
	if strings.Count(strings.Join(values, " "), "nodes/s") != 3 || strings.Count(strings.Join(values, " "), "sec/op") != 3 {
		t.Errorf("bench.txt values %v:\n%s", values, bench.String())
	}
}

// TestMeasureJSONShape keeps the keys a run with a measure of its own
// adds to run.json in a golden file, as TestRunJSONShape keeps the rest.
func TestMeasureJSONShape(t *testing.T) {
	r := &Run{Schema: Schema, State: StateFinished, Benchmarks: []Benchmark{rateBench("stockfish", 1e6, 1.2e6, 1.1e6)}}
	b := &r.Benchmarks[0]
	b.Version = "Stockfish 15.1"
	b.Runs[0].StderrFile = "outputs/stockfish-0.stderr"
	b.Runs[0].Source = &Source{Tool: KindGeekbench, File: "outputs/x.json", Name: "x.json", SHA256: "00", Bytes: 1}
	r.Skipped = []Skip{{Name: "speedtest1", Why: "not built"}}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(data, &v)
	var keys []string
	for _, k := range keyPaths(v, "") {
		for _, p := range []string{".benchmarks[].measure", ".benchmarks[].version", ".benchmarks[].runs[].value",
			".benchmarks[].runs[].stderr_file", ".benchmarks[].runs[].source", ".skipped"} {
			if strings.HasPrefix(k, p) {
				keys = append(keys, k)
				break
			}
		}
	}
	got := strings.Join(keys, "\n") + "\n"
	golden := filepath.Join("testdata", "measure-keys.golden")
	if *update {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./results -run TestMeasureJSONShape -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("the measure's keys changed:\n%s\nwant:\n%s", got, want)
	}
}

// A benchmark judged by a rate in one run and by its time in the other
// (a suite that gained a metric, or hyperfine's run of the command) is
// compared by the wall time both keep, and the note says so; a score
// without a time against a time is withheld.
func TestMeasuresInCommon(t *testing.T) {
	rate := rateBench("stockfish", 1e6, 1.1e6, 1.2e6, 1e6, 1.1e6, 1.2e6)
	time := rate
	time.Measure = nil
	a := &Run{Schema: Schema, State: StateFinished, Benchmarks: []Benchmark{time}}
	b := &Run{Schema: Schema, State: StateFinished, Benchmarks: []Benchmark{rate}}
	d := Compare(a, b).Deltas[0]
	if d.Measure != WallTime || d.Withheld != "" || d.Change == nil || !strings.Contains(strings.Join(d.Warnings, " "), "compared by wall time") {
		t.Errorf("a rate against a time: %+v", d)
	}
	scores := scoreRun(1)
	scores.Benchmarks[0].Name = "stockfish"
	a.Source = scores.Source // of one kind: only the measures differ
	if d := Compare(a, scores).Deltas[0]; !strings.Contains(d.Withheld, "no measure in common") || d.Change != nil {
		t.Errorf("a score against a time: %+v", d)
	}
}
