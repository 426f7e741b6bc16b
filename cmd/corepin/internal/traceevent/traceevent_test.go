package traceevent

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/results"
)

var update = flag.Bool("update", false, "rewrite the golden trace")

const fixture = "testdata/run"

func load(t *testing.T, dir string) *results.Run {
	t.Helper()
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func write(t *testing.T, run *results.Run, dir string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, run, dir); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGolden renders the fixture folder (a run whose switches were traced,
// one where BPF could not be loaded) and holds it to the golden file, to
// the format's rules and to its run.json.
func TestGolden(t *testing.T) {
	run := load(t, fixture)
	data := write(t, run, fixture)
	golden := filepath.Join("testdata", "run.trace.golden.json")
	if *update {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("the trace differs from %s (go test -update rewrites it):\n%s", golden, data)
	}
	tr, err := Check(data)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := Verify(run, tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(ag) != 2 || !ag[0].Compared || ag[0].SlicesS != 0.003 || ag[1].Compared || !strings.Contains(ag[1].Why, "not traced") {
		t.Errorf("agreements %+v, want run 0 compared (3 ms of slices) and run 1 not, its switches not traced", ag)
	}
}

// find returns the events of phase ph named name.
func find(tr *Trace, ph, name string) []Event {
	var out []Event
	for _, e := range tr.TraceEvents {
		if e.Ph == ph && e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// TestWhatTheTraceHolds reads the fixture's trace for what each part of
// run.json became, on the one clock: µs from run.json's started.
func TestWhatTheTraceHolds(t *testing.T) {
	tr, err := Check(write(t, load(t, fixture), fixture))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ph, name string
		ts, dur  float64
		pid, tid int
	}{
		{"X", "fib #0", 100_000, 30_000, RunsPID, 1},       // others.from, window_s
		{"X", "fib #1", 200_000, 25_000, RunsPID, 1},       // the failed run, a verdict of its own
		{"i", "speed probe before", 99_500, 0, RunsPID, 1}, // probe_before.at
		{"X", "kworker/1:2", 112_000, 2_000, CPUsPID, cpuTID(1)},
		{"C", "CPU 1 utilisation", 114_000, 0, CPUsPID, 0}, // telemetry.started + the t_s before
		{"C", "CPU 0 frequency", 130_000, 0, CPUsPID, 0},   // telemetry.started + its t_s
		{"i", "who ran on the target: not recorded", 200_000, 0, RunsPID, 1},
	} {
		var hit bool
		for _, e := range find(tr, c.ph, c.name) {
			d := 0.0
			if e.Dur != nil {
				d = *e.Dur
			}
			hit = hit || e.TS == c.ts && d == c.dur && e.PID == c.pid && e.TID == c.tid
		}
		if !hit {
			t.Errorf("no %s %q at %v µs for %v µs on %d/%d: %+v", c.ph, c.name, c.ts, c.dur, c.pid, c.tid, find(tr, c.ph, c.name))
		}
	}
	if got := find(tr, "X", "fib #1")[0].Args["verdict"]; got != "invalid: wrong answer" {
		t.Errorf("run 1's verdict %v", got)
	}
	why := find(tr, "i", "who ran on the target: not recorded")[0].Args["why"].(string)
	if !strings.Contains(why, "operation not permitted") {
		t.Errorf("the untraced run says %q, not why", why)
	}
	if n := len(find(tr, "C", "CPU 0 utilisation")); n != 2 {
		t.Errorf("%d utilisation points of CPU 0, want the CSV's 2", n)
	}
	if n := len(find(tr, "C", "CPU 1 frequency")); n != 1 {
		t.Errorf("%d frequency points of CPU 1, want 1: an unknown frequency is no point", n)
	}
	share := find(tr, "C", "others' share of the target")
	if len(share) != 4 {
		t.Fatalf("%d points of the others' share, want a rise and a fall for each run", len(share))
	}
	if v, _ := number(share[0].Args["%"]); v != 10 {
		t.Errorf("the others' share over run 0 is %v%%, want its 10%%", v)
	}
	if got := tr.OtherData["clock"].(string); !strings.Contains(got, "2026-12-05T10:00:00Z") {
		t.Errorf("the clock is said as %q", got)
	}
}

// othersDrawn is the time of the slices drawn as others' on the CPUs'
// tracks, in ms.
func othersDrawn(tr *Trace) float64 {
	var sum float64
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" && e.PID == CPUsPID && e.Cat == "others" {
			sum += *e.Dur / 1000
		}
	}
	return sum
}

// TestVisibleOthersAreCharged reads the fixture's slice of a thread still
// running when the window was cut, 4 ms on the CPU of which the kernel
// had charged 1 ms: it is drawn as others' time for the 1 ms, the rest
// after it as not charged, so that the others' time drawn is run.json's
// 3 ms. A slice of a file from elsewhere that runs past the window is cut
// to it, with its run time in proportion.
func TestVisibleOthersAreCharged(t *testing.T) {
	tr, err := Check(write(t, load(t, fixture), fixture))
	if err != nil {
		t.Fatal(err)
	}
	if got := othersDrawn(tr); math.Abs(got-3) > 1e-9 {
		t.Errorf("%.3f ms drawn as others' time, want the 3 ms charged", got)
	}
	rest := find(tr, "X", "spin (not charged)")
	if len(rest) != 1 || rest[0].TS != 127_000 || *rest[0].Dur != 3_000 || rest[0].Cat != "uncharged" || !strings.Contains(rest[0].Args["why"].(string), "still running") {
		t.Errorf("the uncharged rest of the running slice: %+v", rest)
	}

	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "timeline"), 0o755)
	csv := "start_s,end_s,cpu,pid,tid,on_cpu_s,work,comm\n0.020000000,0.040000000,1,9,9,0.010000000,0,spin\n"
	if err := os.WriteFile(filepath.Join(dir, "timeline", "fib-0.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	spin := find(Build(load(t, fixture), dir), "X", "spin")
	if len(spin) != 1 || spin[0].TS != 120_000 || *spin[0].Dur != 5_000 || spin[0].Args["on_cpu_ms"] != 5.0 {
		t.Errorf("a slice past the window's end: %+v, want 5 ms of its 10 ms run time drawn, in the window's last 10 ms", spin)
	}
}

// TestCountersAtTheirPeriodsStart reads telemetry sampled every 100 ms,
// the last sample taken as the run ended 45 ms after the one before: each
// utilisation, that of the period ending at its sample, is drawn where its
// period began (the first at the sampler's first reading, t_s 0), and each
// frequency, a reading at its sample, at the sample.
func TestCountersAtTheirPeriodsStart(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "telemetry"), 0o755)
	csv := "t_s,cpu,util_pct,freq_mhz,freq_source\n" +
		"0.100,1,10.0,1000.0,scaling_cur_freq\n0.200,1,20.0,2000.0,scaling_cur_freq\n" +
		"0.300,1,30.0,3000.0,scaling_cur_freq\n0.345,1,40.0,4000.0,scaling_cur_freq\n"
	if err := os.WriteFile(filepath.Join(dir, "telemetry", "fib-0.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	run := load(t, fixture)
	run.Options.TelemetryPeriod = 0.1
	run.Benchmarks[0].Runs = run.Benchmarks[0].Runs[:1]
	run.Benchmarks[0].Runs[0].Scheduling = nil
	t0 := 99_000.0 // telemetry.started, in µs from run.json's started
	for _, c := range []struct {
		name string
		want []float64 // ms after t0
	}{
		{"CPU 1 utilisation", []float64{0, 100, 200, 300}},
		{"CPU 1 frequency", []float64{100, 200, 300, 345}},
	} {
		var got []float64
		for _, e := range find(Build(run, dir), "C", c.name) {
			got = append(got, (e.TS-t0)/1000)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s drawn at %v ms after the telemetry's start, want %v", c.name, got, c.want)
		}
	}
}

// TestOldRunJSON renders a run.json of an older corepin, which has no
// window, no probe times and no telemetry start: the run is placed at its
// record's start for its wall time and says so, the telemetry from the
// same start, and the slices, which have no window to count from, are
// not shown.
func TestOldRunJSON(t *testing.T) {
	run := load(t, fixture)
	rec := &run.Benchmarks[0].Runs[0]
	rec.Scheduling.Sharing.Others.From = time.Time{}
	rec.ProbeBefore.At, rec.ProbeAfter.At = time.Time{}, time.Time{}
	rec.Telemetry.Started = time.Time{}
	tr, err := Check(write(t, run, fixture))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(run, tr); err != nil {
		t.Error(err)
	}
	s := find(tr, "X", "fib #0")[0]
	if s.TS != 98_000 || *s.Dur != 20_000 || !strings.Contains(s.Args["placed"].(string), "no window") {
		t.Errorf("the old run's slice %+v, want it at its record's start (98 ms) for its wall time, saying so", s)
	}
	if n := len(find(tr, "i", "speed probe before")); n != 0 {
		t.Errorf("%d probes without a time", n)
	}
	if n := len(find(tr, "X", "kworker/1:2")); n != 0 {
		t.Errorf("slices shown without a window to count from")
	}
	if u := find(tr, "C", "CPU 1 utilisation"); len(u) == 0 || u[0].TS != 98_000 {
		t.Errorf("telemetry %+v, want it from the record's start", u)
	}
}

// TestCheckRefuses holds Check to each of the format's rules.
func TestCheckRefuses(t *testing.T) {
	names := `{"name":"process_name","ph":"M","ts":0,"pid":1,"tid":0,"args":{"name":"p"}},` +
		`{"name":"thread_name","ph":"M","ts":0,"pid":1,"tid":1,"args":{"name":"t"}}`
	trace := func(events ...string) []byte {
		return []byte(`{"traceEvents":[` + strings.Join(append([]string{names}, events...), ",") + `]}`)
	}
	x := func(name string, ts, dur float64) string {
		return fmt.Sprintf(`{"name":%q,"ph":"X","ts":%v,"dur":%v,"pid":1,"tid":1}`, name, ts, dur)
	}
	if _, err := Check(trace(x("a", 0, 10), x("b", 2, 3), x("c", 10, 5))); err != nil {
		t.Errorf("nested and adjacent slices: %v", err)
	}
	for name, data := range map[string][]byte{
		"not JSON":       []byte(`{"traceEvents":[`),
		"no events":      []byte(`{}`),
		"no ph":          trace(`{"name":"a","ts":0,"pid":1,"tid":1}`),
		"no ts":          trace(`{"name":"a","ph":"i","s":"t","pid":1,"tid":1}`),
		"no pid":         trace(`{"name":"a","ph":"i","s":"t","ts":0,"tid":1}`),
		"no tid":         trace(`{"name":"a","ph":"i","s":"t","ts":0,"pid":1}`),
		"no name":        trace(`{"ph":"i","s":"t","ts":0,"pid":1,"tid":1}`),
		"ts a string":    trace(`{"name":"a","ph":"i","s":"t","ts":"0","pid":1,"tid":1}`),
		"X without dur":  trace(`{"name":"a","ph":"X","ts":0,"pid":1,"tid":1}`),
		"negative dur":   trace(x("a", 0, -1)),
		"C without args": trace(`{"name":"c","ph":"C","ts":0,"pid":1,"tid":0}`),
		"C of a string":  trace(`{"name":"c","ph":"C","ts":0,"pid":1,"tid":0,"args":{"v":"1"}}`),
		"unnamed name":   trace(`{"name":"thread_name","ph":"M","ts":0,"pid":1,"tid":2,"args":{}}`),
		"unnamed thread": trace(`{"name":"a","ph":"X","ts":0,"dur":1,"pid":1,"tid":2}`),
		"unnamed proc":   trace(`{"name":"c","ph":"C","ts":0,"pid":2,"tid":0,"args":{"v":1}}`),
		"instant scope":  trace(`{"name":"a","ph":"i","s":"x","ts":0,"pid":1,"tid":1}`),
		"other phase":    trace(`{"name":"a","ph":"B","ts":0,"pid":1,"tid":1}`),
		"overlap":        trace(x("a", 0, 10), x("b", 5, 10)),
	} {
		if _, err := Check(data); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestVerifyDisagrees changes run.json's others' time by 2 ms: the
// slices no longer account for it.
func TestVerifyDisagrees(t *testing.T) {
	run := load(t, fixture)
	tr, err := Check(write(t, run, fixture))
	if err != nil {
		t.Fatal(err)
	}
	run.Benchmarks[0].Runs[0].Scheduling.Sharing.Others.S += 0.002
	if _, err := Verify(run, tr); err == nil || !strings.Contains(err.Error(), "add up to 3.000 ms") {
		t.Errorf("Verify: %v, want the slices' 3 ms against run.json's 5 ms", err)
	}
	run = load(t, fixture)
	run.Benchmarks[0].Runs[1].Scheduling.Sharing.Others.WindowS = 0.03
	if _, err := Verify(run, tr); err == nil {
		t.Error("a run's slice that is not over its window passed")
	}
}

// TestVerifyByTicks: others' time read from /proc/stat's ticks is held
// to the slices within the readings' resolution, not a millisecond.
func TestVerifyByTicks(t *testing.T) {
	run := load(t, fixture)
	tr, err := Check(write(t, run, fixture))
	if err != nil {
		t.Fatal(err)
	}
	o := run.Benchmarks[0].Runs[0].Scheduling.Sharing.Others
	o.Exact, o.Source, o.ResolutionS = false, "proc_stat", 0.02
	o.S += 0.015
	ag, err := Verify(run, tr)
	if err != nil || !ag[0].Compared || !strings.Contains(ag[0].Why, "known to 20.0 ms") {
		t.Errorf("15 ms apart by ticks of 20 ms: %v, %+v; want compared and passed, saying the resolution", err, ag[0])
	}
	o.S += 0.01
	if _, err := Verify(run, tr); err == nil || !strings.Contains(err.Error(), "more than 21.000 ms apart") {
		t.Errorf("25 ms apart by ticks of 20 ms: %v, want the disagreement", err)
	}
}

// TestInconsistentReading gives run 0 the reading of a real run: the
// target busy for longer than the window on its one CPU, which no window
// holds. The trace says so on the run and draws no others' share from
// it, and Verify says so for the run instead of failing on a others'
// time that is not a measurement.
func TestInconsistentReading(t *testing.T) {
	run := load(t, fixture)
	o := run.Benchmarks[0].Runs[0].Scheduling.Sharing.Others
	o.BusyS, o.S = 0.0312, 0.0082 // 31.2 ms busy in a 30 ms window; less the work's 23 ms
	tr, err := Check(write(t, run, fixture))
	if err != nil {
		t.Fatal(err)
	}
	ag, err := Verify(run, tr)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if ag[0].Compared || !strings.Contains(ag[0].Why, "inconsistent") || ag[0].SlicesS != 0.003 {
		t.Errorf("run 0: %+v, want it not compared, saying the reading is inconsistent, with its slices' 3 ms", ag[0])
	}
	said := find(tr, "i", "others' time: run.json's reading is inconsistent")
	if len(said) != 1 || said[0].TS != 100_000 || !strings.Contains(said[0].Args["why"].(string), "31.200 ms") {
		t.Errorf("the instant on the run: %+v", said)
	}
	if r, _ := find(tr, "X", "fib #0")[0].Args["others_reading"].(string); !strings.Contains(r, "not a measurement") {
		t.Errorf("the run's slice says of the reading %q", r)
	}
	for _, e := range find(tr, "C", "others' share of the target") {
		if e.TS >= 100_000 && e.TS <= 130_000 {
			t.Errorf("an others' share drawn from the inconsistent reading: %+v", e)
		}
	}
}

// TestTelemetryThinned gives a run more telemetry instants than a run may
// show: every k-th is kept, and the trace says so.
func TestTelemetryThinned(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(fixture, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "telemetry"), 0o755)
	var csv strings.Builder
	csv.WriteString("t_s,cpu,util_pct,freq_mhz,freq_source\n")
	n := 3*MaxCountersPerRun + 1
	for i := range n {
		fmt.Fprintf(&csv, "%.3f,1,50.0,,none\n", float64(i)/1000)
	}
	if err := os.WriteFile(filepath.Join(dir, "telemetry", "fib-0.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := Build(load(t, dir), dir)
	if got := len(find(tr, "C", "CPU 1 utilisation")); got > MaxCountersPerRun || got < MaxCountersPerRun/2 {
		t.Errorf("%d of %d instants kept, want at most %d and not far fewer", got, n, MaxCountersPerRun)
	}
	if left := fmt.Sprint(tr.OtherData["left_out"]); !strings.Contains(left, "thinned") {
		t.Errorf("left_out %s does not say the telemetry was thinned", left)
	}
}

// TestTheBoundIsABound builds the fixture's trace under every bound from
// what its runs' own slices need to all it has: the trace never holds more
// events than its bound, keeps to the format, still has every run's slice,
// says what it left out, and Verify adds up no run whose slices it cut.
func TestTheBoundIsABound(t *testing.T) {
	run := load(t, fixture)
	all := len(Build(run, fixture).TraceEvents)
	essential := 4 + 2 + 2 // the processes' names, the benchmark's, its two runs
	for limit := essential; limit <= all; limit++ {
		tr := build(run, fixture, limit)
		if n := len(tr.TraceEvents); n > limit {
			t.Errorf("bound %d: %d events", limit, n)
		}
		data, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		checked, err := Check(data)
		if err != nil {
			t.Errorf("bound %d: %v", limit, err)
			continue
		}
		if _, err := Verify(run, checked); err != nil {
			t.Errorf("bound %d: %v", limit, err)
		}
		left := tr.OtherData["left_out"].([]string)
		if len(tr.TraceEvents) < all && len(left) == 0 {
			t.Errorf("bound %d: %d of %d events, and nothing said to be left out", limit, len(tr.TraceEvents), all)
		}
		if limit == all-1 && !strings.Contains(strings.Join(left, "; "), fmt.Sprintf("holds at most %d events", limit)) {
			t.Errorf("bound %d: left out %q, without the bound", limit, left)
		}
	}
}

// leafImports are what the trace view may link outside the standard
// library: what results links, and the two CSV formats it reads.
var leafImports = map[string]bool{
	"corepin.dev/corepin/cpuset":                          true,
	"corepin.dev/corepin/internal/inputfile":              true,
	"corepin.dev/corepin/internal/atomicfile":             true,
	"corepin.dev/corepin/internal/termsafe":               true,
	"corepin.dev/corepin/results":                         true,
	"corepin.dev/corepin/results/evidence":                true,
	"golang.org/x/perf/benchmath":                         true,
	"golang.org/x/perf/benchunit":                         true,
	"github.com/aclements/go-moremath/mathx":              true,
	"github.com/aclements/go-moremath/stats":              true,
	"github.com/aclements/go-moremath/vec":                true,
	"corepin.dev/corepin/internal/procfs":                 true,
	"corepin.dev/corepin/fsroot":                          true,
	"golang.org/x/sys/unix":                               true,
	"corepin.dev/corepin/cmd/corepin/internal/traceevent": true,
	"corepin.dev/corepin/internal/oncpu/timeline":         true,
	"corepin.dev/corepin/internal/samples":                true,
}

// The trace view is a leaf like results: a reader of a results folder
// links no launcher, sampler or BPF loader.
func TestIsALeaf(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the package's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if !leafImports[d] {
			t.Errorf("the trace view links %s", d)
		}
	}
}

func FuzzCheck(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "run.trace.golden.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Add(`{"traceEvents":[{"name":"a","ph":"X","ts":1e308,"dur":1e308,"pid":1,"tid":1}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := Check([]byte(text))
		if err != nil {
			return
		}
		// What passed is a trace: it encodes again, and passes again.
		again, err := json.Marshal(tr)
		if err != nil {
			t.Fatalf("a checked trace does not encode: %v", err)
		}
		if _, err := Check(again); err != nil {
			t.Errorf("%q passed, and its encoding fails: %v", text, err)
		}
	})
}

// TestLostSlices gives a run whose target CPU logged more slices than it
// keeps: the slices kept are shown, an instant says the rest is missing,
// and Verify does not add them up.
func TestLostSlices(t *testing.T) {
	run := load(t, fixture)
	run.Benchmarks[0].Runs[0].Scheduling.Sharing.Switches.Lost = 3
	tr, err := Check(write(t, run, fixture))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(find(tr, "X", "kworker/1:2")); n != 1 {
		t.Errorf("%d kept slices of kworker/1:2 shown, want 1", n)
	}
	if p := find(tr, "i", "who ran on the target: partly recorded"); len(p) != 1 || !strings.Contains(p[0].Args["why"].(string), "3 earlier slices") {
		t.Errorf("the instant for the lost slices: %+v", p)
	}
	ag, err := Verify(run, tr)
	if err != nil || ag[0].Compared {
		t.Errorf("Verify: %v, %+v: a run with slices lost is not added up", err, ag[0])
	}
}

// TestOverlappingFile reads a timeline file whose slices overlap (a
// folder may come from anywhere): the trace still keeps to the format.
func TestOverlappingFile(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"run.json", "telemetry/fib-0.csv", "telemetry/fib-1.csv"} {
		data, err := os.ReadFile(filepath.Join(fixture, f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "timeline"), 0o755)
	csv := "start_s,end_s,cpu,pid,tid,on_cpu_s,work,comm\n0,0.010,1,40,40,0.01,1,fib\n0.005,0.020,1,7,7,0.015,0,kworker\n0.001,0.002,1,9,9,0.001,0,spin\n"
	if err := os.WriteFile(filepath.Join(dir, "timeline", "fib-0.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(write(t, load(t, dir), dir)); err != nil {
		t.Error(err)
	}
}

// FuzzBuild renders whatever run.json reads beside the fixture's files:
// the trace keeps to the format's rules.
func FuzzBuild(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(fixture, "run.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Fuzz(func(t *testing.T, text string) {
		run, err := results.Parse([]byte(text))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := Write(&b, run, fixture); err != nil {
			return // a number JSON cannot hold is refused, not written
		}
		if _, err := Check(b.Bytes()); err != nil {
			t.Errorf("%v\n%s", err, b.Bytes())
		}
	})
}
