package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"corepin.dev/corepin/internal/bandwidth"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// witnessProbe is the speed probe of these tests: thirty times the
// default, so that it spans many scheduler slices and CFS periods and a
// competitor or a quota shows in every reading, not only in some.
const witnessProbe = 30 * time.Millisecond

// halfwaySuite's command spins, says it is half-way through on the fifo
// $1, and ends at the word to go on from the fifo $2.
const halfwaySuite = `
[[benchmark]]
name = "halfway"
cmd = "sh"
args = ["-c", "i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; echo half > \"$0\"; read go < \"$1\"", %q, %q]
`

// A competitor that appears on the target half-way through the run is
// still there for the probe after it, not for the one before:
// speed_after is below speed_before, and the run's typed speed warning is
// in run.json. The competitor is at nice -10, above the probe's nice 0: a
// probe that has slept through the run and wakes beside a competitor of
// its own priority may run most of its length first (beside go test's
// other packages one read 0.91 of the best beside such a competitor,
// which had taken half of the run's second half).
func TestCompetitorHalfwayLowersSpeedAfter(t *testing.T) {
	skipTimingUnderTCG(t, "the speed witness")
	if f := sched.NiceLowering(); !f.Supported {
		t.Skipf("needs a competitor at nice -10, above the probe: %s", f.Evidence)
	}
	cfg := config(t)
	testcpu.Alone(t)
	cfg.Request.Ladder, cfg.Runs, cfg.Warmup, cfg.SpeedProbe = session.AffinityOnly(), 1, 0, witnessProbe
	dir := t.TempDir()
	half, goOn := filepath.Join(dir, "half"), filepath.Join(dir, "go")
	for _, f := range []string{half, goOn} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Suite = loadSuite(t, fmt.Sprintf(halfwaySuite, half, goOn))
	var competitor *exec.Cmd
	started := make(chan error, 1)
	go func() {
		// Blocks until the command opens the fifo: the signal, not a
		// sleep, says when half the work is done.
		data, err := os.ReadFile(half)
		if err != nil || string(data) != "half\n" {
			started <- fmt.Errorf("the command's word: %q, %v", data, err)
			return
		}
		competitor, err = competitorAt(cfg.Target.ExactCPU, -10)
		if werr := os.WriteFile(goOn, []byte("go\n"), 0o600); err == nil {
			err = werr
		}
		started <- err
	}()
	run, folder, err := Run(context.Background(), cfg)
	if competitor != nil {
		defer func() { competitor.Process.Kill(); competitor.Wait() }()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	rec := run.Benchmarks[0].Runs[0]
	if rec.Error != "" || rec.SpeedBefore == nil || rec.SpeedAfter == nil {
		t.Fatalf("run error %q, speed before %v, after %v", rec.Error, rec.SpeedBefore, rec.SpeedAfter)
	}
	t.Logf("speed before %.2f, after %.2f (%s)", *rec.SpeedBefore, *rec.SpeedAfter, rec.SpeedSource)
	if rec.StealS == nil {
		t.Error("no steal time in the record: /proc/stat has it")
	}
	if *rec.SpeedBefore < 1-results.SpeedWarn {
		// testcpu.Alone keeps corepin's other tests off the target, not
		// the rest of go test's packages or the host.
		t.Skipf("the target was slowed before the competitor came (speed before %.2f): other work on this machine took it", *rec.SpeedBefore)
	}
	if *rec.SpeedAfter >= *rec.SpeedBefore || *rec.SpeedAfter > 1-results.SpeedWarn {
		t.Errorf("speed after %.2f beside a competitor that came half-way, before %.2f: want after below before and below %.2f",
			*rec.SpeedAfter, *rec.SpeedBefore, 1-results.SpeedWarn)
	}
	back, err := results.Load(folder.Path)
	if err != nil {
		t.Fatal(err)
	}
	var found *results.Warning
	for _, w := range back.Benchmarks[0].Warnings {
		if w.Kind == results.KindSpeed {
			found = &w
		}
	}
	if found == nil || found.Run != 0 || found.Value == nil {
		t.Fatalf("run.json has no speed warning on run 0: %+v", back.Benchmarks[0].Warnings)
	}
	t.Logf("run.json: %s", found.Text)
}

// competitorOn starts the test binary's busy loop on cpu, at the default
// priority, and returns once it is there.
func competitorOn(cpu int) (*exec.Cmd, error) { return competitorAt(cpu, 0) }

// competitorAt is competitorOn at nice value nice.
func competitorAt(cpu, nice int) (*exec.Cmd, error) {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "COREPIN_RUNNER_HELPER=compete", "COREPIN_COMPETE_CPU="+strconv.Itoa(cpu), "COREPIN_COMPETE_NICE="+strconv.Itoa(nice))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := startDyingWithTest(cmd); err != nil {
		return nil, err
	}
	buf := make([]byte, 6)
	if n, _ := out.Read(buf); string(buf[:n]) != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("the competitor did not start: %q", buf[:n])
	}
	return cmd, nil
}

// quotaEvents limits corepin to a third of a CPU by CFS bandwidth for
// the first attempt of one counted run, and lifts the limit when that run
// starts again.
type quotaEvents struct {
	noEvents
	limit  *bandwidth.Limit
	run    int
	starts int
	err    error
}

func (e *quotaEvents) RunStarted(_ string, run, _ int, warmup bool) {
	if warmup || run != e.run {
		return
	}
	e.starts++
	quota := -1
	if e.starts == 1 {
		quota = 1000
	}
	if err := e.limit.Set(quota); err != nil && e.err == nil {
		e.err = err
	}
}

// --speed-gate drops a run whose witness reads a third of the best (the
// test's whole process held to a third of a CPU by CFS bandwidth for that
// run) and runs it again: the statistics are of the planned runs, the
// dropped one is in run.json with its reason.
func TestSpeedGateReRunsASlowedRun(t *testing.T) {
	cfg := config(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a cpu cgroup")
	}
	testcpu.Alone(t)
	cfg.Only, cfg.Isolation, cfg.Runs, cfg.Warmup = []string{"fib"}, Thread, 3, 0
	cfg.SpeedProbe, cfg.SpeedGate = witnessProbe, true
	l, err := bandwidth.New(-1, 3000)
	if errors.Is(err, bandwidth.ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Skipf("cannot make a cpu cgroup: %v", err)
	}
	defer func() {
		if err := l.Remove(); err != nil {
			t.Errorf("removing the cgroup: %v", err)
		}
	}()
	// The largest weight keeps the rest of the machine's work from
	// slowing the other runs: only the quota does.
	if err := l.MaxWeight(); err != nil {
		t.Fatal(err)
	}
	if err := l.AddProcess(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	events := &quotaEvents{limit: l, run: 1}
	cfg.Events = events
	run, folder, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if events.err != nil || events.starts < 2 {
		t.Fatalf("run 1 started %d time(s) (want a re-run); quota: %v", events.starts, events.err)
	}
	back, err := results.Load(folder.Path)
	if err != nil {
		t.Fatal(err)
	}
	b := back.Benchmarks[0]
	if len(b.DroppedRuns) == 0 {
		t.Fatal("no dropped run in run.json")
	}
	// go test's other packages on the same CPUs can slow another run
	// below the gate too, which is then dropped as rightly: the test asks
	// that the throttled run 1 is among the dropped, at about a third.
	throttled := false
	for _, d := range b.DroppedRuns {
		s, _ := d.Speed()
		t.Logf("dropped run %d at speed %.2f: %s", d.Index, s, d.Dropped)
		throttled = throttled || (d.Index == 1 && d.Dropped != "" && s <= 0.5)
	}
	if !throttled {
		t.Errorf("run 1, throttled to a third, is not among the dropped runs %+v", b.DroppedRuns)
	}
	if b.N != 3 || len(b.Runs) != 3 || len(b.Included) != 3 {
		t.Errorf("statistics of %d runs (included %v) from %d records, want the 3 planned", b.N, b.Included, len(b.Runs))
	}
	if !run.Options.SpeedGate || run.Options.SpeedGateReruns != MaxSpeedReruns {
		t.Errorf("options %+v do not state the gate", run.Options)
	}
	gate := false
	for _, w := range b.Warnings {
		gate = gate || w.Kind == results.KindSpeedGate
	}
	if !gate {
		t.Errorf("no speed-gate warning: %v", results.WarningTexts(b.Warnings))
	}
}
