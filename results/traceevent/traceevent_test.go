package traceevent

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
		{"C", "CPU 1 utilisation", 129_000, 0, CPUsPID, 0}, // telemetry.started + t_s
		{"C", "CPU 0 frequency", 129_000, 0, CPUsPID, 0},
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

// leafImports are what the trace view may link outside the standard
// library: what results links, and the two CSV formats it reads.
var leafImports = map[string]bool{
	"corepin.dev/corepin/cpuset":              true,
	"corepin.dev/corepin/internal/inputfile":  true,
	"corepin.dev/corepin/internal/atomicfile": true,
	"corepin.dev/corepin/internal/termsafe":   true,
	"corepin.dev/corepin/results":             true,
	"corepin.dev/corepin/results/evidence":    true,
	"golang.org/x/perf/benchmath":             true,
	"golang.org/x/perf/benchunit":             true,
	"github.com/aclements/go-moremath/mathx":  true,
	"github.com/aclements/go-moremath/stats":  true,
	"github.com/aclements/go-moremath/vec":    true,
	"corepin.dev/corepin/internal/procfs":     true,
	"corepin.dev/corepin/fsroot":              true,
	"golang.org/x/sys/unix":                   true,
	"corepin.dev/corepin/results/traceevent":  true,
	"corepin.dev/corepin/oncpu/timeline":      true,
	"corepin.dev/corepin/telemetry/samples":   true,
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
