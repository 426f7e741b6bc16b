package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/cmd/corepin/internal/system"
	"corepin.dev/corepin/results/evidence"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/session"
)

// A run records the machine's condition at its start and end, and the
// judge warns when it is not tuned for the target, and when the target's
// frequency moved while it was locked.
func TestSystemFactsAndWarnings(t *testing.T) {
	root := filepath.Join(t.TempDir(), "phone")
	if out, err := exec.Command("cp", "-a", "../system/testdata/machines/phone-4-3-1", root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	lo, hi := 1555.2, 2841.6
	newRun := func() *results.Run {
		return &results.Run{Target: results.Target{ExactCPU: 7}, Benchmarks: []results.Benchmark{{Name: "fib", Runs: []results.RunRecord{{
			Telemetry: results.TelemetryStats{FreqMinMHz: &lo, FreqMaxMHz: &hi}}}}}}
	}
	cfg := Config{Root: fsroot.Root(root), Request: session.Request{CPU: 7}}
	end := func(run *results.Run) {
		r := &suiteRun{cfg: cfg, res: run}
		r.systemStart()
		r.words.End(run, judge.Ending{Lost: r.systemEnd()})
	}
	run := newRun()
	end(run)
	if run.System == nil || run.System.Start == nil || run.System.End == nil || !run.System.Start.Target.Equal(cpuset.Of(7)) {
		t.Fatalf("system facts: %+v", run.System)
	}
	text := strings.Join(results.WarningTexts(run.Warnings), "\n")
	if !strings.Contains(text, "machine not tuned for measuring on CPUs 7") || strings.Contains(text, "frequency moved") {
		t.Errorf("warnings on an untuned machine:\n%s", text)
	}
	// Locked at 2841.6 MHz, the telemetry saw 1555.2: throttled or undone.
	policy := filepath.Join(root, "sys/devices/system/cpu/cpufreq/policy7")
	os.WriteFile(filepath.Join(policy, "scaling_governor"), []byte("performance\n"), 0o644)
	os.WriteFile(filepath.Join(policy, "scaling_min_freq"), []byte("2841600\n"), 0o644)
	run = newRun()
	end(run)
	text = strings.Join(results.WarningTexts(run.Warnings), "\n")
	if !strings.Contains(text, "fib: the target's frequency moved between 1555 and 2842 MHz while it was locked at 2842 MHz") {
		t.Errorf("warnings on a locked machine whose frequency moved:\n%s", text)
	}
}

// A run's tune is part of its config: made as the run opens (on a
// machine's dump here), recorded in run.json, and put back as it ends,
// before the results are saved, so that run.json on disk holds the reset;
// what the tune could not do is said.
func TestTuneIsMadeAndRecordedInsideTheRun(t *testing.T) {
	cfg := config(t)
	cfg.Only, cfg.Runs, cfg.Isolation = []string{"fib"}, 1, Thread
	root := filepath.Join(t.TempDir(), "phone")
	if out, err := exec.Command("cp", "-a", "../system/testdata/machines/phone-4-3-1", root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	var said []string
	cfg.Tune = &Tune{Machine: &system.Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json")},
		Request: evidence.TuneRequest{CPUs: cpuset.Of(7), Freq: "90%"}, Who: "corepin run --tune", Say: func(s string) { said = append(said, s) }}
	_, folder, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := results.Load(folder.Path)
	if err != nil {
		t.Fatal(err)
	}
	tuned := back.System.Tuned
	if tuned == nil || tuned.Result == nil || len(tuned.Result.Done) == 0 || tuned.Reset == nil || len(tuned.Reset.Restored) == 0 {
		t.Fatalf("run.json's tune: %+v (said %q)", tuned, said)
	}
	data, _ := os.ReadFile(filepath.Join(root, "sys/devices/system/cpu/cpufreq/policy7/scaling_min_freq"))
	if got := strings.TrimSpace(string(data)); got == "2419200" {
		t.Errorf("the frequency lock is still there after the run: scaling_min_freq %s", got)
	}
}
