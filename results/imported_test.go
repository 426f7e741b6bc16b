package results

import (
	"bytes"
	"strings"
	"testing"
)

// commandRun is a run of one command: a suite's (corepin run), or an
// import of another tool's (tool "hyperfine"), which names its benchmark
// by its command line and records nothing of where it ran.
func commandRun(tool, name string, command []string, times ...float64) *Run {
	r := &Run{Schema: Schema, State: StateFinished, Host: Host{Hostname: "vm", CPUModel: "EPYC"},
		Target: Target{Spec: "prime", Mode: "exact", ExactCPU: 1}, Options: Options{Suite: "/s/suite.toml", SuiteSHA256: "ab", Isolation: "process"}}
	if tool != "" {
		r.Source = &Source{Tool: tool, Name: "bench.json", File: "source/bench.json"}
		r.Host, r.Target, r.Options = Host{}, Target{ExactCPU: -1}, Options{}
	}
	b := Benchmark{Name: name, Kind: "command", Command: command, PlannedRuns: len(times)}
	for i, t := range times {
		b.Runs = append(b.Runs, RunRecord{Index: i, WallS: t, Valid: true})
	}
	b.Summarize()
	r.Benchmarks = []Benchmark{b}
	return r
}

// A hyperfine import of a command and a suite's run of the same command
// line compare side by side, with what is not recorded said; another
// command line, or another kind of work, is refused.
func TestImportedCommandComparesWithASuiteRun(t *testing.T) {
	times := []float64{0.100, 0.101, 0.099, 0.100, 0.102, 0.098}
	slower := []float64{0.120, 0.121, 0.119, 0.120, 0.122, 0.118}
	imported := commandRun(KindHyperfine, "/usr/games/stockfish bench", []string{"/usr/games/stockfish", "bench"}, times...)
	suite := commandRun("", "stockfish", []string{"stockfish", "bench"}, slower...)
	c := Compare(imported, suite)
	if len(c.Differences) != 0 || len(c.Deltas) != 1 {
		t.Fatalf("differences %v, deltas %+v", c.Differences, c.Deltas)
	}
	d := c.Deltas[0]
	if d.Withheld != "" || d.Change == nil || d.Verdict() != VerdictSlower {
		t.Errorf("delta %+v: verdict %q", d, d.Verdict())
	}
	var text bytes.Buffer
	c.WriteText(&text)
	for _, want := range []string{"where it ran: not recorded (imported from hyperfine's bench.json)", "ran the same command line"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("compare's text lacks %q:\n%s", want, text.String())
		}
	}
	m := Merged([]*Run{suite, imported}, []string{"suite", "hyperfine"})
	if len(m.Benchmarks) != 1 || m.Benchmarks[0].Cells[1] == nil || m.Benchmarks[0].Cells[1].Relative == nil {
		t.Errorf("merge does not put the same command side by side: %+v", m.Benchmarks)
	}
	text.Reset()
	m.WriteText(&text)
	if !strings.Contains(text.String(), "where it ran: not recorded") {
		t.Errorf("merge's text:\n%s", text.String())
	}

	other := commandRun(KindHyperfine, "stockfish bench 16 1 9", []string{"stockfish", "bench", "16", "1", "9"}, times...)
	for _, d := range Compare(other, suite).Deltas { // each only in its own run
		if d.Change != nil || (d.Old != nil && d.New != nil) {
			t.Errorf("another command line is compared: %+v", d)
		}
	}
	renamed := commandRun(KindHyperfine, "stockfish", []string{"stockfish", "bench", "16"}, times...)
	if d := Compare(renamed, suite).Deltas[0]; !strings.Contains(d.Withheld, "it ran another command") || d.Change != nil {
		t.Errorf("the same name, another command line: %+v", d)
	}
	scores := commandRun(KindGeekbench, "stockfish", []string{"stockfish", "bench"}, times...)
	if c := Compare(scores, suite); len(c.Differences) == 0 || c.Deltas[0].Withheld == "" {
		t.Errorf("a Geekbench import against a suite run: %+v", c)
	}
}

// An imported run's views say where it ran is not recorded, never CPU -1.
func TestImportedRunViews(t *testing.T) {
	r := commandRun(KindPyperf, "telco", nil, 0.01, 0.011)
	var text bytes.Buffer
	r.WriteSummary(&text, nil)
	if !strings.Contains(text.String(), "imported from pyperf's bench.json; where it ran: not recorded") || strings.Contains(text.String(), "CPU -1") {
		t.Errorf("summary:\n%s", text.String())
	}
	text.Reset()
	r.WriteBenchFormat(&text)
	if !strings.Contains(text.String(), "corepin-target: not-recorded") {
		t.Errorf("bench.txt:\n%s", text.String())
	}
	if !r.Target.CPUs().IsEmpty() {
		t.Errorf("an imported run's target CPUs: %v", r.Target.CPUs())
	}
}

// What an imported file does not say is "not recorded" in merge, not a
// blank; another tool's sizes are not corepin's quick or full, and are
// not compared.
func TestImportedRunSaysNotRecorded(t *testing.T) {
	imported := commandRun(KindHyperfine, "stockfish bench", []string{"stockfish", "bench"}, 0.1, 0.1)
	suite := commandRun("", "stockfish", []string{"stockfish", "bench"}, 0.1, 0.1)
	suite.Options.Quick = true
	var text bytes.Buffer
	Merged([]*Run{suite, imported}, []string{"suite", "hyperfine"}).WriteText(&text)
	if !strings.Contains(text.String(), "[2] hyperfine: not recorded, not recorded, kernel not recorded\n    topology:   not recorded\n") {
		t.Errorf("merge's text:\n%s", text.String())
	}
	if c := Compare(suite, imported); len(c.Differences) != 0 {
		t.Errorf("an import is compared by sizes: %q", c.Differences)
	}
}

// A SPEC import joined with corepin's reports says where they say it ran.
func TestImportedRunWithReportsSaysWhere(t *testing.T) {
	r := commandRun(KindSpec, "505.mcf_r.base", nil, 300, 301)
	r.Target = Target{Spec: "bind", Mode: "exact", ExactCPU: 3, Why: "SPEC's bind, as corepin exec was asked: copy 0 on CPUs 3"}
	var text bytes.Buffer
	r.WriteSummary(&text, nil)
	if r.WhereNotRecorded() || !strings.Contains(text.String(), "on CPU 3 (exact): SPEC's bind, as corepin exec was asked: copy 0 on CPUs 3; imported from spec's bench.json") ||
		strings.Contains(text.String(), "not recorded") {
		t.Errorf("summary:\n%s", text.String())
	}
}
