package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/suite"
	"corepin.dev/corepin/topology"
	"corepin.dev/corepin/workloads"
)

// The test binary doubles as corepin's launcher and workload command, so
// the runner can use it as Self.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "__corepin-launch":
			launchMain()
		case WorkloadCommand:
			os.Exit(workloadMain(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

func config(t *testing.T) Config {
	t.Helper()
	testcpu.Target(t) // skips unless a CPU is left off the target
	topo, err := topology.Read("/")
	if err != nil {
		t.Fatal(err)
	}
	target, err := topo.Select("prime")
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Topology: topo, Target: target, Mode: session.Exact, Ladder: session.Geekbench,
		Quick: true, Runs: 2, Warmup: 0, WatchPeriod: 20 * time.Millisecond, OutDir: t.TempDir(),
	}
}

func TestBuiltinProcessRun(t *testing.T) {
	cfg := config(t)
	cfg.Only = []string{"fib", "gametree"}
	run, folder, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Benchmarks) != 2 || run.Interrupted || run.Finished == nil || run.Score == nil {
		t.Fatalf("run %+v", run)
	}
	for _, b := range run.Benchmarks {
		if !b.Valid || b.N != 2 || b.Ratio == nil {
			t.Errorf("%s: valid %v, n %d, ratio %v, warnings %v", b.Name, b.Valid, b.N, b.Ratio, b.Warnings)
		}
		for _, r := range b.Runs {
			if r.Scheduling == nil || r.Scheduling.Readback.CPU != cfg.Target.ExactCPU {
				t.Errorf("%s run %d: read-back CPU is not the target %d", b.Name, r.Index, cfg.Target.ExactCPU)
			}
			data, err := os.ReadFile(filepath.Join(folder.Path, r.TelemetryCSV))
			if err != nil || strings.Count(string(data), "\n") < 2 {
				t.Errorf("%s run %d: telemetry %s: %v", b.Name, r.Index, r.TelemetryCSV, err)
			}
		}
	}
	back, err := results.Load(folder.Path)
	if err != nil || back.Benchmarks[0].MedianS != run.Benchmarks[0].MedianS {
		t.Errorf("run.json does not hold the result: %v", err)
	}
	for _, f := range []string{"summary.csv", "bench.txt"} {
		if _, err := os.Stat(filepath.Join(folder.Path, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestThreadIsolation(t *testing.T) {
	cfg := config(t)
	cfg.Only = []string{"fib"}
	cfg.Isolation = Thread
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := run.Benchmarks[0]
	if !b.Valid || b.Runs[0].Scheduling == nil || !b.Runs[0].Scheduling.Readback.ExactAtReadback || !b.Runs[0].Scheduling.Restore.OK {
		t.Errorf("thread run: %+v", b.Runs[0].Scheduling)
	}
}

// writeSuite makes a suite whose "bad" command prints a number 1% off its
// reference, beyond a 0.1% tolerance.
func writeSuite(t *testing.T, extra string) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ref.txt"), []byte("result 100.0\n"), 0o644)
	text := `
[settings]
runs = 2
warmup = 0

[[benchmark]]
name = "good"
cmd = "sh"
args = ["-c", "echo result 100.00001"]
reference_seconds = 0.01
  [[benchmark.check]]
  stdout = true
  expected = "ref.txt"
  reltol = 1e-3

[[benchmark]]
name = "bad"
cmd = "sh"
args = ["-c", "echo result 101.0"]
  [[benchmark.check]]
  stdout = true
  expected = "ref.txt"
  reltol = 1e-3
` + extra
	path := filepath.Join(dir, "suite.toml")
	os.WriteFile(path, []byte(text), 0o644)
	return path
}

func TestSuiteOutputOffTolerance(t *testing.T) {
	cfg := config(t)
	s, err := suite.Load(writeSuite(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Suite, cfg.Runs, cfg.Warmup = s, 0, -1
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	good, bad := run.Benchmarks[0], run.Benchmarks[1]
	if !good.Valid || bad.Valid || run.Score != nil {
		t.Errorf("good valid %v, bad valid %v, score %v", good.Valid, bad.Valid, run.Score)
	}
	if got := bad.Runs[0].Checks[0]; got.Passed || !strings.Contains(got.Detail, "101.0") {
		t.Errorf("bad check %+v", got)
	}
	if good.N != 2 || bad.N != 2 {
		t.Errorf("runs: good %d, bad %d; the invalid benchmark must not stop the others", good.N, bad.N)
	}
}

func TestMissingCommandRefusedBeforeRunning(t *testing.T) {
	cfg := config(t)
	s, err := suite.Load(writeSuite(t, "\n[[benchmark]]\nname = \"ghost\"\ncmd = \"./no-such-program\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Suite = s
	_, folder, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "ghost") || folder != nil {
		t.Errorf("err %v, folder %v; want a refusal before any folder is made", err, folder)
	}
	entries, _ := os.ReadDir(cfg.OutDir)
	if len(entries) != 0 {
		t.Errorf("something was written: %v", entries)
	}
}

func TestUnwritableOutput(t *testing.T) {
	cfg := config(t)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	cfg.OutDir = filepath.Join(file, "results")
	cfg.Only = []string{"fib"}
	if _, _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "results folder") {
		t.Errorf("err %v", err)
	}
}

func TestInterrupt(t *testing.T) {
	cfg := config(t)
	s, err := suite.Load(writeSuite(t, "\n[[benchmark]]\nname = \"slow\"\ncmd = \"sleep\"\nargs = [\"30\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Suite = s
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Events = &cancelOn{name: "slow", cancel: cancel}
	start := time.Now()
	run, folder, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Interrupted || time.Since(start) > 15*time.Second {
		t.Fatalf("interrupted %v after %v", run.Interrupted, time.Since(start))
	}
	back, err := results.Load(folder.Path)
	if err != nil || !back.Interrupted || back.Benchmarks[0].N != 2 || !back.Benchmarks[0].Valid || len(back.Benchmarks[2].Runs) != 0 {
		t.Errorf("saved run: %v %+v", err, back)
	}
	// The machine's state is put back: this process's mask is whole again.
	if out, err := exec.Command("grep", "Cpus_allowed_list", "/proc/self/status").Output(); err == nil && strings.Contains(string(out), "\t"+string(rune('0'+cfg.Target.ExactCPU))+"\n") {
		t.Errorf("a child inherited a pinned mask: %s", out)
	}
}

// cancelOn cancels the run shortly after the named benchmark starts.
type cancelOn struct {
	noEvents
	name   string
	cancel context.CancelFunc
}

func (c *cancelOn) RunStarted(bench string, _, _ int, _ bool) {
	if bench == c.name {
		time.AfterFunc(300*time.Millisecond, c.cancel)
	}
}

func TestShuffleInterleaves(t *testing.T) {
	cfg := Config{Runs: 3, Warmup: 1, Shuffle: true}
	benches := []bench{{name: "a", workload: &workloads.Fib}, {name: "b", workload: &workloads.Fib}}
	jobs := cfg.jobs(benches)
	if len(jobs) != 8 {
		t.Fatalf("%d jobs", len(jobs))
	}
	for round := range 4 {
		pair := jobs[2*round : 2*round+2]
		if pair[0].bench == pair[1].bench || pair[0].index != round || pair[1].index != round {
			t.Errorf("round %d: %+v", round, pair)
		}
	}
}
