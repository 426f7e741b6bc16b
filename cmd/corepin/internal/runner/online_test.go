package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// offlineRoot returns a root whose online list lacks the target, and a
// function that brings the target back.
func offlineRoot(t *testing.T, cfg *Config) func() {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "sys", "devices", "system", "cpu")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	online := cfg.Topology.Online
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "online"), []byte(s+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	write(online.Difference(cfg.Request.Mask()).String())
	topo := *cfg.Topology
	topo.Root = root
	cfg.Topology = &topo
	return func() { write(online.String()) }
}

func TestOfflineTargetStopsTheRunEarly(t *testing.T) {
	cfg := config(t)
	cfg.Only, cfg.Runs, cfg.Warmup, cfg.Isolation = []string{"fib"}, 1, 0, Thread
	offlineRoot(t, &cfg)
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(run.StoppedEarly, "is offline (") || !strings.Contains(run.StoppedEarly, "before run 0 of fib") || run.Score != nil {
		t.Errorf("stopped early %q, score %v", run.StoppedEarly, run.Score)
	}
	if len(run.Benchmarks[0].Runs) != 0 {
		t.Errorf("%d runs recorded on an offline target", len(run.Benchmarks[0].Runs))
	}
}

// The runs are named as the progress lines name them, by their index.
func TestJobNames(t *testing.T) {
	if got := (job{index: 4}).name("lbm"); got != "run 4 of lbm" {
		t.Errorf("%q", got)
	}
	if got := (job{index: 0, warmup: true}).name("fib"); got != "warm-up 0 of fib" {
		t.Errorf("%q", got)
	}
}

// A run whose target went offline under it says so, not the exit status
// 124 that stands for it, nor anything the command did not do.
func TestRunWhoseTargetWentOfflineSaysSo(t *testing.T) {
	zero := 0
	rep := &launch.Report{}
	rep.Child.ExitCode = &zero
	rep.Watch = &evidence.Watch{TargetOffline: &evidence.Offline{CPUs: cpuset.Of(3), AtS: 0.4}}
	var rec results.RunRecord
	if record(&rec, rep, nil, []byte("")) {
		t.Fatal("a run whose target went offline recorded as complete")
	}
	if !strings.HasPrefix(rec.Error, "the target was no longer held: CPU 3 went offline at 0.4 s") || !strings.HasSuffix(rec.Error, "(the command itself exited 0)") || strings.Contains(rec.Error, "124") {
		t.Errorf("error %q", rec.Error)
	}
}

// noteEvents brings the target back when the runner says it waits.
type noteEvents struct {
	noEvents
	back  func()
	notes []string
}

func (e *noteEvents) Note(s string) { e.notes = append(e.notes, s); e.back() }

func TestOfflineTargetIsWaitedFor(t *testing.T) {
	cfg := config(t)
	cfg.Only, cfg.Runs, cfg.Warmup, cfg.Isolation = []string{"fib"}, 1, 0, Thread
	ev := &noteEvents{back: offlineRoot(t, &cfg)}
	cfg.Events, cfg.WaitOnline = ev, time.Minute
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.StoppedEarly != "" || len(run.Benchmarks[0].Runs) != 1 {
		t.Fatalf("stopped early %q with %d runs", run.StoppedEarly, len(run.Benchmarks[0].Runs))
	}
	waits := 0 // beside them, a user who may not raise the priority is told so
	for _, n := range ev.notes {
		if strings.Contains(n, "waiting up to 1m0s") {
			waits++
		}
	}
	if waits != 1 {
		t.Errorf("notes %q: want one of the wait", ev.notes)
	}
	if !hasWarning(run, "waited") {
		t.Errorf("warnings %q: no word of the wait", run.Warnings)
	}
}

func hasWarning(run *results.Run, s string) bool {
	for _, w := range run.Warnings {
		if strings.Contains(w.Text, s) {
			return true
		}
	}
	return false
}
