package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/telemetry"
	"corepin.dev/corepin/cmd/corepin/internal/workloads"
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// The launcher runs on the process's main thread (see launch.Main): the
// test binary, which doubles as it, keeps its main goroutine there from
// its initialisation on, as corepin's main package does.
func init() { runtime.LockOSThread() }

// The test binary doubles as corepin's launcher and workload command, so
// the runner can use it as Self: it answers corepin's helper verbs.
func TestMain(m *testing.M) {
	switch os.Getenv("COREPIN_RUNNER_HELPER") {
	case "compete":
		competitor()
	case "threads":
		threads()
	case "spin":
		spinOwnCPU()
	}
	Dispatch(os.Args)
	quietRaceExit()
	os.Exit(m.Run())
}

// quietRaceExit keeps the helper processes of a race-instrumented test
// binary from sleeping at exit: the race runtime waits a second before a
// process ends (GORACE's atexit_sleep_ms, 1000 by default), which the
// judge rightly reads as work that slept beside a competitor. A GORACE
// the caller set is left alone.
func quietRaceExit() {
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
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
		Topology: topo, Target: target,
		Request: session.Request{CPU: target.ExactCPU, Group: target.SoftCPUs, Mode: evidence.Exact, Ladder: session.GeekbenchLadder()},
		Quick:   true, Runs: 2, Warmup: 0, WatchPeriod: 20 * time.Millisecond, OutDir: t.TempDir(),
		// go test runs other packages' tests beside these: the target is
		// shared for real, which only the sharing tests are about.
		AllowSharing: true,
	}
}

func TestBuiltinProcessRun(t *testing.T) {
	cfg := config(t)
	cfg.Only = []string{"fib", "gametree"}
	run, folder, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range run.Benchmarks {
		skipUnvouchedInGuest(t, b.Runs...)
	}
	if len(run.Benchmarks) != 2 || run.Interrupted || run.Finished == nil || run.Score == nil {
		t.Fatalf("run %+v", run)
	}
	for _, b := range run.Benchmarks {
		if !b.Valid || b.N != 2 || b.Ratio == nil {
			t.Errorf("%s: valid %v, n %d, ratio %v, warnings %v", b.Name, b.Valid, b.N, b.Ratio, b.Warnings)
		}
		for _, r := range b.Runs {
			if r.Scheduling == nil || r.Scheduling.Readback.CPU != cfg.Request.CPU {
				t.Errorf("%s run %d: read-back CPU is not the target %d", b.Name, r.Index, cfg.Request.CPU)
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
	skipUnvouchedInGuest(t, b.Runs...)
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
	skipUnvouchedInGuest(t, good.Runs...)
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
	if err == nil && len(back.Benchmarks) > 0 {
		skipUnvouchedInGuest(t, back.Benchmarks[0].Runs...)
	}
	if err != nil || !back.Interrupted || back.Benchmarks[0].N != 2 || !back.Benchmarks[0].Valid || len(back.Benchmarks[2].Runs) != 0 {
		t.Errorf("saved run: %v %+v", err, back)
	}
	// The machine's state is put back: this process's mask is whole again.
	if out, err := exec.Command("grep", "Cpus_allowed_list", "/proc/self/status").Output(); err == nil && strings.Contains(string(out), "\t"+string(rune('0'+cfg.Request.CPU))+"\n") {
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
	fib, _ := workloads.ByName("fib")
	benches := []bench{{name: "a", workload: &fib, runs: 3, warmups: 1}, {name: "b", workload: &fib, runs: 3, warmups: 1}}
	jobs := jobs(benches, true)
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

// With --isolation thread the work runs inside corepin, so every other
// thread of corepin (the runtime's, the sampler's, the watcher's) must read
// back a mask without the target CPU while it runs. The probe workload
// looks, from the measured thread, at every thread of the process.
func TestThreadIsolationKeepsCorepinOffTheTarget(t *testing.T) {
	cfg := config(t)
	cfg.Isolation = Thread
	folder, err := results.Create(t.TempDir(), "host", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	target := cfg.Request.CPU
	probe := workloads.New("probe", "reads every thread's mask", nil, func(workloads.Size) (workloads.Result, error) {
		self := sched.Gettid()
		var bad []string
		threads := 0
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return workloads.Result{}, err
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join("/proc/self/task", e.Name(), "status"))
			if err != nil {
				continue // the thread ended
			}
			mask, err := allowedList(string(data))
			if err != nil {
				return workloads.Result{}, err
			}
			threads++
			tid, _ := strconv.Atoi(e.Name())
			switch {
			case tid == self && !mask.Equal(cpuset.Of(target)):
				bad = append(bad, fmt.Sprintf("the measured thread %d has mask %s", tid, mask))
			case tid != self && mask.Contains(target):
				bad = append(bad, fmt.Sprintf("thread %d has mask %s", tid, mask))
			}
		}
		why := strings.Join(bad, "; ")
		if threads < 2 {
			why = "fewer than two threads listed"
		}
		return workloads.Result{Valid: why == "", Why: why, Summary: fmt.Sprintf("%d threads", threads)}, nil
	})
	rec := (&suiteRun{cfg: cfg, folder: folder}).once(context.Background(), bench{name: "probe", workload: &probe}, job{})
	if rec.Error != "" {
		t.Fatal(rec.Error)
	}
	if !rec.Valid {
		t.Errorf("while the work ran on CPU %d: %s", target, rec.Checks[0].Detail)
	}
	if rec.Scheduling == nil || rec.Scheduling.Start != launch.StartThread || rec.Scheduling.Parent.CPUs.Contains(target) || !rec.Scheduling.Parent.Restored {
		t.Errorf("scheduling report: %+v", rec.Scheduling)
	}
	if w := rec.Scheduling.Watch; w == nil || len(w.Threads) != 1 || w.Threads[0].TID != rec.Scheduling.TID {
		t.Errorf("the watcher did not follow the work's thread alone: %+v", w)
	}
}

// allowedList reads Cpus_allowed_list from a /proc status file.
func allowedList(status string) (cpuset.Set, error) {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return cpuset.Parse(strings.TrimSpace(v))
		}
	}
	return cpuset.Set{}, fmt.Errorf("no Cpus_allowed_list in %q", status)
}

// The host facts are read under the configured root.
func TestHostFactsOnAFixture(t *testing.T) {
	dir := t.TempDir()
	cpufreq := filepath.Join(dir, "sys/devices/system/cpu/cpu3/cpufreq")
	if err := os.MkdirAll(cpufreq, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cpufreq, "scaling_governor"), []byte("schedutil\n"), 0o644)
	os.WriteFile(filepath.Join(cpufreq, "scaling_driver"), []byte("intel_pstate\n"), 0o644)
	h := hostFacts(Config{Root: fsroot.Root(dir), Request: session.Request{CPU: 3}})
	if h.Governor != "schedutil" || h.Driver != "intel_pstate" {
		t.Errorf("host facts under %s: %+v", dir, h)
	}
}

// The rough-frequency note is said beside the chart, not in every run's
// record; which note it is comes from its kind, not its words.
func TestTelemetryNotesByKind(t *testing.T) {
	s := &telemetry.Series{Notes: []telemetry.Note{
		{Kind: telemetry.NoteRoughFrequency, Text: `frequency from "cpu MHz" of /proc/cpuinfo: a rough value`},
		{Kind: telemetry.NoteGap, Text: "t=0.1s: CPU 1 has no frequency reading: a gap (cpu MHz unknown)"},
	}}
	st := summarizeTelemetry(s, cpuset.Of(1))
	if len(st.Notes) != 1 || st.Notes[0] != s.Notes[1].Text {
		t.Errorf("kept notes %+v, want the gap alone", st.Notes)
	}
}

// A command's output that cannot be kept in the results folder makes the
// run an error, not a silent success without its evidence.
func TestUnwritableOutputIsAnError(t *testing.T) {
	cfg := config(t)
	s, err := suite.Load(writeSuite(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Suite = s
	folder, err := results.Create(t.TempDir(), "host", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// outputs/ cannot be made: a file has its name.
	if err := os.WriteFile(filepath.Join(folder.Path, "outputs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b := bench{name: s.Benchmarks[0].Name, command: &s.Benchmarks[0]}
	var rec results.RunRecord
	(&suiteRun{cfg: cfg, folder: folder}).runCommand(context.Background(), b, job{}, &rec)
	if rec.Error == "" || !strings.Contains(rec.Error, "keeping the output") || rec.StdoutFile != "" {
		t.Errorf("error %q, stdout file %q; want the write error and no file", rec.Error, rec.StdoutFile)
	}
}

// Config.Self is the program that acts as launcher and workload: it must
// be the one that is started, not this process's own executable.
func TestSelfIsPassedOn(t *testing.T) {
	cfg := config(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "started")
	self := filepath.Join(dir, "corepin-wrapper")
	script := fmt.Sprintf("#!/bin/sh\necho \"$1\" >> %q\nexec %q \"$@\"\n", log, exe)
	if err := os.WriteFile(self, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.Self = self
	level := qos.UserInteractive // a QoS level goes through the launcher
	cfg.Request.QoS, cfg.Request.Ladder, cfg.Request.Accept = &level, session.QoSLadder(level), session.AnyRule()
	cfg.Only, cfg.Runs = []string{"fib"}, 1
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(log)
	if !strings.Contains(string(data), launch.Arg) {
		t.Errorf("the launcher was not started through Self %s; it saw %q", self, data)
	}
	if r := run.Benchmarks[0].Runs[0]; r.Error != "" || r.Scheduling.Start != launch.StartLauncher {
		t.Errorf("run: %q, start %q", r.Error, r.Scheduling.Start)
	}
}

// Config.Launcher starts every process run through the launcher, and the
// run's options say so.
func TestLauncherIsPassedOn(t *testing.T) {
	cfg := config(t)
	s, err := suite.Load(writeSuite(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Suite, cfg.Only, cfg.Launcher = s, []string{"good"}, true
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Options.Launcher {
		t.Error("options: launcher not recorded")
	}
	for _, r := range run.Benchmarks[0].Runs {
		if r.Error != "" || r.Scheduling.Start != launch.StartLauncher || r.WallS <= 0 || r.Scheduling.Child.WallSource == "" {
			t.Errorf("run %d: %q, start %q, wall_s %v (%s)", r.Index, r.Error, r.Scheduling.Start, r.WallS, r.Scheduling.Child.WallSource)
		}
	}
}

// More runs than one run records are refused before anything starts,
// whether the suite's settings or the command line ask for them; the
// command line's count may bring a suite's back within the limit.
func TestTooManyRunsRefusedBeforeRunning(t *testing.T) {
	s, err := suite.Parse("s.toml", []byte(fmt.Sprintf("[settings]\nruns = %d\n[[benchmark]]\nname = \"a\"\ncmd = \"true\"\n[[benchmark]]\nname = \"b\"\ncmd = \"true\"\n", MaxTotalRuns-1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		cfg     Config
		refused bool
	}{
		{"built-ins", Config{Runs: MaxTotalRuns, Warmup: 0}, true},
		{"the suite's runs", Config{Suite: s, Warmup: -1}, true},
		{"the suite's runs of one", Config{Suite: s, Only: []string{"a"}, Warmup: 1}, false},
		{"the suite's runs and a warm-up of one", Config{Suite: s, Only: []string{"a"}, Warmup: 2}, true},
		{"fewer runs of the suite", Config{Suite: s, Runs: 5, Warmup: -1}, false},
	} {
		err := tt.cfg.Validate()
		var many *TooManyRunsError
		if errors.As(err, &many) != tt.refused {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	// Run refuses it before its results folder is made: a file in the
	// folder's place would fail the making, with another error.
	cfg := config(t)
	cfg.Runs, cfg.OutDir = MaxTotalRuns, filepath.Join(cfg.OutDir, "file")
	os.WriteFile(cfg.OutDir, nil, 0o644)
	var many *TooManyRunsError
	if _, folder, err := Run(context.Background(), cfg); !errors.As(err, &many) || folder != nil {
		t.Errorf("a run of %d runs a benchmark: %v", MaxTotalRuns, err)
	}
}
