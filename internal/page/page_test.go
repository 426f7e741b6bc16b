package page

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/topology"
)

var update = flag.Bool("update", false, "rewrite testdata/small and the golden page")

const evil = "<script>alert(1)</script>"

// smallRun is a fixed run on the HarmonyOS phone fixture: a benchmark with
// a frequency source, one whose name is a script tag and whose machine
// reported no frequency, a run with one sample and a run with none.
func smallRun(t *testing.T) *results.Run {
	topo, err := topology.Read("../../topology/testdata/machines/sgu-al10")
	if err != nil {
		t.Fatal(err)
	}
	target, _ := topo.Select("prime")
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ratio := 0.95
	rep := &evidence.Scheduling{Command: []string{"corepin", "workload", "fib"}}
	rep.Readback = evidence.Readback{CPUs: cpuset.Of(12), CPU: 12, Policy: "other", Nice: -20, ExactAtReadback: true}
	rep.Ladder = evidence.LadderResult{Name: "geekbench", AcceptedStep: 2, Steps: []evidence.StepResult{
		{Step: 1, Asked: "fifo:1 + uclamp 1024/1024", Skipped: "realtime is not allowed"},
		{Step: 2, Asked: "other + nice -20 + uclamp 1024/1024", Accepted: true}}}
	rep.Accept = evidence.AcceptResult{Rule: "exact", OK: true, Why: "exact: on CPU 12"}
	rep.Restore = evidence.RestoreResult{Done: true, OK: true}
	one := 1.0
	rep.Watch = &evidence.Watch{OnTargetRatio: &one, Threads: []evidence.ThreadStat{{TID: 1, Running: 10, OnTarget: 10}}}
	run := &results.Run{Schema: results.Schema, Started: start, Topology: topologyRecord(t, topo), State: results.StateFinished,
		Host:    results.Host{Hostname: "phone", Kernel: "5.10.0", CPUModel: "Kirin <test>", GoVersion: "go1.26.8"},
		Target:  results.Target{Spec: "prime", Mode: "exact", ExactCPU: 12, SoftCPUs: target.SoftCPUs, Why: target.Why},
		Options: results.Options{Runs: 2, Warmup: 0, Isolation: "process", TelemetryPeriod: 0.5, Ladder: "geekbench"},
	}
	fib := results.Benchmark{Name: "fib", Description: "recursive Fibonacci", Kind: "builtin", ReferenceS: 1}
	// The second run's witness saw the target at about half its best.
	full, steal := 1.0, 0.02
	for i := range 2 {
		rate := 1e9 / float64(1+i)
		fib.Runs = append(fib.Runs, results.RunRecord{Index: i, WallS: 1.0 + 0.1*float64(i), Valid: true, Scheduling: rep,
			Started: start.Add(time.Duration(i) * 3 * time.Second), TelemetryCSV: fmt.Sprintf("telemetry/fib-%d.csv", i),
			SpeedSource: "work thread", StealS: &steal,
			ProbeBefore: &results.SpeedProbe{Rate: 1e9, OnCPU: &full}, ProbeAfter: &results.SpeedProbe{Rate: rate, OnCPU: &full}})
	}
	bad := results.Benchmark{Name: evil, Description: "a name that must stay text", Kind: "command", Command: []string{"./x"}}
	bad.Runs = []results.RunRecord{
		{Index: 0, WallS: 0.5, Valid: false, Error: "exit status 3: <b>bold</b>", Started: start.Add(7 * time.Second), TelemetryCSV: "telemetry/evil-0.csv"},
		{Index: 1, WallS: 0.5, Valid: true, Started: start.Add(8 * time.Second), TelemetryCSV: "telemetry/evil-1.csv"},
	}
	fib.Summarize()
	bad.Summarize()
	fib.Ratio = &ratio
	run.Benchmarks = []results.Benchmark{fib, bad}
	run.ComputeScore()
	run.Warnings = []results.Warning{{Run: results.NoRun, Kind: results.KindNoScore, Text: "no score: a benchmark is invalid, unfinished or has no reference time"}}
	return run
}

// topologyRecord is the topology as run.json keeps it.
func topologyRecord(t *testing.T, topo *topology.Topology) *evidence.Topology {
	data, err := json.Marshal(topo)
	if err != nil {
		t.Fatal(err)
	}
	var rec evidence.Topology
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	return &rec
}

// writeSmall writes the fixed results folder.
func writeSmall(t *testing.T, dir string, run *results.Run) {
	os.MkdirAll(filepath.Join(dir, "telemetry"), 0o755)
	f := &results.Folder{Path: dir}
	if err := f.Save(run); err != nil {
		t.Fatal(err)
	}
	csv := func(name string, rows []string) {
		os.WriteFile(filepath.Join(dir, "telemetry", name), []byte("t_s,cpu,util_pct,freq_mhz,freq_source\n"+strings.Join(rows, "")), 0o644)
	}
	var rows []string
	for i := range 5 {
		t := 0.5 * float64(i+1)
		rows = append(rows, fmt.Sprintf("%.3f,12,%.1f,%.1f,scaling_cur_freq\n%.3f,13,%.1f,%.1f,scaling_cur_freq\n", t, 95+float64(i), 2750-100*float64(i%2), t, 2.0, 2750.0))
	}
	csv("fib-0.csv", rows)
	csv("fib-1.csv", rows[:1])
	csv("evil-0.csv", nil)
	csv("evil-1.csv", []string{"0.500,12,50.0,,none\n", "1.000,12,,,none\n"})
}

func TestGoldenPage(t *testing.T) {
	dir := filepath.Join("testdata", "small")
	if *update {
		os.RemoveAll(dir)
		writeSmall(t, dir, smallRun(t))
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := Write(&got, run, dir); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "small.golden.html")
	if *update {
		os.WriteFile(golden, got.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		os.WriteFile(golden+".got", got.Bytes(), 0o644)
		t.Errorf("the page differs from %s; see %s.got (run with -update to accept)", golden, golden)
	}
}

func TestPageIsSafeAndSelfContained(t *testing.T) {
	run, err := results.Load(filepath.Join("testdata", "small"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, run, filepath.Join("testdata", "small")); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<b>bold", "http://", "https://", "@import", "src="} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "Kirin &lt;test&gt;", "maximum 2.75 GHz",
		"This machine reports no CPU frequency", "<details>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestSegmentsAndTicks(t *testing.T) {
	nan := math.NaN()
	segs := segments([]Point{{0, 1}, {1, 2}, {2, nan}, {3, 4}, {10, 5}, {11, 6}}, 3)
	if len(segs) != 3 || len(segs[0]) != 2 || len(segs[1]) != 1 || len(segs[2]) != 2 {
		t.Errorf("segments %v", segs)
	}
	if got := ticks(0, 100, 4); len(got) != 5 || got[1] != 25 {
		t.Errorf("ticks(0,100) = %v", got)
	}
	if got := ticks(0, 2.75, 4); got[len(got)-1] > 2.75 {
		t.Errorf("ticks(0,2.75) = %v", got)
	}
	empty := LineChart{Title: "x"}.SVG()
	if !strings.Contains(string(empty), "no samples") {
		t.Error("an empty chart does not say so")
	}
}

// A benchmark judged by a rate its output printed shows the rate, its
// unit and which way is better, and each run's value beside its time.
func TestPageShowsTheMeasure(t *testing.T) {
	run := smallRun(t)
	nps := results.Measure{Name: "Nodes/second", Unit: "nodes/s", Better: results.HigherIsBetter}
	b := &run.Benchmarks[0]
	b.Measure = &results.Measured{Measure: nps}
	for i := range b.Runs {
		v := 1e6 * float64(i+1)
		b.Runs[i].Value = &v
	}
	b.Summarize()
	var out bytes.Buffer
	if err := Write(&out, run, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Nodes/second (nodes/s, higher is better)", "1.500M nodes/s", "<th class=\"num\">Value</th>", "2.000M nodes/s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
