package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/results/evidence"
)

// wide is text that JSON writes at six bytes a character ("<" is
// \u003c): the most a character of outside text can cost.
func wide(n int) string { return strings.Repeat("<", n) }

// worstRecord is a run of a suite command as corepin records it (the
// record in testdata/record.json, written by corepin on a small machine),
// with every part that grows at its largest: a thousand threads, errors
// and notes by the hundred, the suite's most checks with a regular
// expression, a reference and an output of long words, and every text
// from outside as long as it may be and at six bytes a character. The
// machine has cpus CPUs, all in each of its lists of CPUs.
func worstRecord(t *testing.T, cpus int) RunRecord {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "record.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec RunRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	all := cpuset.Range(0, cpus-1)
	s := rec.Scheduling
	s.Command = nil // a suite command's is its benchmark's, as the runner records it
	s.Capture.CPUs, s.Parent.CPUs, s.Watch.WatcherCPUs = all, all, all
	s.Tree.PerCPUSeconds = map[int]float64{}
	for c := range cpus {
		s.Tree.PerCPUSeconds[c] = 1.234567891
	}
	s.ExecError, s.Refused, s.WatchError, s.Sharing.PreemptorsError = wide(8192), wide(8192), wide(8192), wide(8192)
	base := s.Watch.Threads[0]
	s.Watch.Threads = nil
	for i := range 1000 {
		th := base
		th.TID, th.Name, th.Running = 100000+i, wide(15), i
		s.Watch.Threads = append(s.Watch.Threads, th)
	}
	for i := range 200 {
		s.Watch.Errors = append(s.Watch.Errors, fmt.Sprintf("%d %s", i, wide(4096)))
		s.Tree.Errors = append(s.Tree.Errors, fmt.Sprintf("%d %s", i, wide(4096)))
		rec.Telemetry.Notes = append(rec.Telemetry.Notes, fmt.Sprintf("%d %s", i, wide(4096)))
	}
	for i := range s.Sharing.Preemptors {
		s.Sharing.Preemptors[i].Comm = wide(15)
	}
	for i := len(s.Sharing.Preemptors); i < evidence.MaxPreemptors; i++ {
		s.Sharing.Preemptors = append(s.Sharing.Preemptors, evidence.Preemptor{PID: i, Comm: wide(15)})
	}
	rec.Error = wide(1 << 20)
	// One warning of each kind the runner gives a run, each longer than
	// any it writes: its words and figures, and five processes' names.
	for _, kind := range []string{KindShared, KindOwnWait, KindOwnThreads, KindCoverage, KindLeftCgroup, KindRealtime, KindSpeedGate} {
		v := 0.5
		rec.Warnings = append(rec.Warnings, Warning{Run: NoRun, Kind: kind, Text: strings.Repeat("w", 300) + wide(5*15), Value: &v})
	}
	rec.Checks = worstChecks(t)
	rec.StdoutFile = filepath.Join("outputs", strings.Repeat("n", suite.MaxNameLen)+"-123456.stdout")
	rec.TelemetryCSV = filepath.Join("telemetry", strings.Repeat("n", suite.MaxNameLen)+"-123456.csv")
	return rec
}

// worstChecks are the outcomes of the most checks a benchmark may have,
// each failed, with the suite's and the output's text as long as it gets.
func worstChecks(t *testing.T) []evidence.Outcome {
	dir := t.TempDir()
	s := &suite.Suite{Path: filepath.Join(dir, "suite.toml")}
	out, ref := filepath.Join(dir, "out"), filepath.Join(dir, wide(200))
	os.WriteFile(out, []byte(wide(1<<16)+"a\n"), 0o644)
	os.WriteFile(ref, []byte(wide(1<<16)+"b\n"), 0o644)
	checks := []suite.Check{
		{File: wide(250), Regex: "z" + wide(4096)},
		{Stdout: true, Regex: "z" + wide(4096)},
		{Stdout: true, Expected: ref},
		{File: wide(250), Expected: ref},
	}
	var outcomes []evidence.Outcome
	for i := range suite.MaxChecks {
		o := checks[i%len(checks)].RunFile(s, suite.Output{Stdout: out, Dir: dir})
		if o.Passed {
			t.Fatalf("check %d passed: %s", i, o.What[:20])
		}
		outcomes = append(outcomes, o)
	}
	return outcomes
}

// perRun is what one more run of rec adds to run.json, as corepin writes
// it (the benchmark's warnings drawn from the run included), and the
// length of its line in the journal.
func perRun(t *testing.T, rec RunRecord) (runJSON, journal int) {
	t.Helper()
	size := func(runs int) int {
		b := Benchmark{Name: "b", Kind: "command", Command: []string{"/bin/sh", "-c", "x"}}
		for i := range runs {
			r := rec
			r.Index = i
			b.Runs = append(b.Runs, r)
		}
		b.Summarize()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&Run{Schema: Schema, Benchmarks: []Benchmark{b}}); err != nil {
			t.Fatal(err)
		}
		return buf.Len()
	}
	line, err := json.Marshal(entry{Benchmark: strings.Repeat("n", suite.MaxNameLen), Record: rec})
	if err != nil {
		t.Fatal(err)
	}
	return size(3) - size(2), len(line) + 1
}

// A run adds at most MaxRecordBytes, and RecordBytesPerCPU for each CPU
// of the machine, to run.json and to the journal, however large the
// suite, the work's threads, its errors and the machine's notes.
func TestRecordGrowsTheFilesByABoundedAmount(t *testing.T) {
	for _, cpus := range []int{2, 64, 1024} {
		rec := worstRecord(t, cpus)
		rec.Bound()
		runJSON, journal := perRun(t, rec)
		limit := MaxRecordBytes + cpus*RecordBytesPerCPU
		t.Logf("%d CPUs: a run adds %d bytes to run.json, %d to the journal (at most %d)", cpus, runJSON, journal, limit)
		if runJSON > limit || journal > limit {
			t.Errorf("%d CPUs: a run adds %d bytes to run.json and %d to the journal, above %d", cpus, runJSON, journal, limit)
		}
	}
}

// The most runs a corepin run makes, each at its largest, with the
// largest suite's commands written once (at six bytes a character), stay
// within what Load reads, on a machine of up to 128 CPUs.
func TestLargestRunIsReadable(t *testing.T) {
	const cpus = 128
	largest := suite.MaxTotalRuns*(MaxRecordBytes+cpus*RecordBytesPerCPU) + 6*suite.MaxFileSize
	if largest > MaxRunFile {
		t.Errorf("%d runs of at most %d bytes and a suite of %d: %d bytes, above the %d Load reads",
			suite.MaxTotalRuns, MaxRecordBytes+cpus*RecordBytesPerCPU, suite.MaxFileSize, largest, MaxRunFile)
	}
}

// Threads beyond the listed ones are added up in one entry: the totals a
// reader makes of the list (the page's residency) stay as measured.
func TestFoldedThreadsKeepTheTotals(t *testing.T) {
	var ts []evidence.ThreadStat
	var running, onTarget int
	var cpu float64
	for i := range 100 {
		th := evidence.ThreadStat{PID: 10, TID: 10 + i, Name: "w", Running: i % 37, OnTarget: i % 37 / 2, CPUSeconds: float64(i), LastCPU: 1}
		ts = append(ts, th)
		running, onTarget, cpu = running+th.Running, onTarget+th.OnTarget, cpu+th.CPUSeconds
	}
	rec := RunRecord{Scheduling: &evidence.Scheduling{Watch: &evidence.Watch{Threads: ts}}}
	rec.Bound()
	got := rec.Scheduling.Watch.Threads
	if len(got) != MaxThreadsListed+1 {
		t.Fatalf("%d threads listed, want %d and one for the rest", len(got), MaxThreadsListed)
	}
	var r, o int
	var c float64
	all := make([]int, len(ts))
	for i, th := range ts {
		all[i] = th.Running
	}
	slices.Sort(all)
	least := all[len(all)-MaxThreadsListed] // the busiest threads' least
	for _, th := range got[:MaxThreadsListed] {
		if th.Running < least {
			t.Errorf("thread %d with %d running samples listed before busier ones", th.TID, th.Running)
		}
	}
	for _, th := range got {
		r, o, c = r+th.Running, o+th.OnTarget, c+th.CPUSeconds
	}
	if r != running || o != onTarget || c != cpu {
		t.Errorf("totals %d running, %d on target, %g s; measured %d, %d, %g s", r, o, c, running, onTarget, cpu)
	}
	rest := got[MaxThreadsListed]
	if rest.TID != 0 || rest.Name != fmt.Sprintf("(%d more threads)", 100-MaxThreadsListed) || rest.LastCPU != -1 {
		t.Errorf("the rest is %+v", rest)
	}
}
