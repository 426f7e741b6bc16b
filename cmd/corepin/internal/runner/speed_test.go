package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"corepin.dev/corepin/internal/bandwidth"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// halfwaySuite's command spins, says it is half-way through on the fifo
// $1, waits for the word to go on from the fifo $2, and spins as long
// again.
const halfwaySuite = `
[[benchmark]]
name = "halfway"
cmd = "sh"
args = ["-c", "spin() { i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; }; spin; echo half > \"$0\"; read go < \"$1\"; spin", %q, %q]
`

// A competitor that comes to the target half-way through a run slows it,
// and the run says so, by the others' time on the target, not by a cause
// unknown nor by the core: its warm-up, alone, is the benchmark's best.
// The competitor is at nice -10, above the command's nice 0, so that it
// takes most of the run's second half.
func TestCompetitorHalfwayIsSaidToSlowTheRun(t *testing.T) {
	skipTimingUnderTCG(t, "the speed verdict")
	if f := sched.NiceLowering(); !f.Supported {
		t.Skipf("needs a competitor at nice -10, above the command: %s", f.Evidence)
	}
	cfg := config(t)
	testcpu.Alone(t)
	cfg.Request.Ladder, cfg.Runs, cfg.Warmup = session.AffinityOnly(), 1, 1
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
		// The warm-up's word is answered at once; the counted run's
		// after the competitor is on the target. Each read blocks until
		// the command opens the fifo: the signal, not a sleep, says when
		// half the work is done.
		for round := range 2 {
			data, err := os.ReadFile(half)
			if err != nil || string(data) != "half\n" {
				started <- fmt.Errorf("the command's word: %q, %v", data, err)
				return
			}
			if round == 1 {
				if competitor, err = competitorAt(cfg.Target.ExactCPU, -10); err != nil {
					os.WriteFile(goOn, []byte("go\n"), 0o600)
					started <- err
					return
				}
			}
			if err := os.WriteFile(goOn, []byte("go\n"), 0o600); err != nil {
				started <- err
				return
			}
		}
		started <- nil
	}()
	run, _, err := Run(context.Background(), cfg)
	if competitor != nil {
		defer func() { competitor.Process.Kill(); competitor.Wait() }()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	b := run.Benchmarks[0]
	rec := b.Runs[len(b.Runs)-1]
	if rec.Warmup || rec.Error != "" || rec.Speed == nil || rec.OthersS == nil {
		t.Fatalf("counted run: warm-up %v, error %q, speed %v, others %v", rec.Warmup, rec.Error, rec.Speed, rec.OthersS)
	}
	t.Logf("warm-up %.3f s, run %.3f s (speed %.2f), others %.3f s: %s", b.Runs[0].WallS, rec.WallS, *rec.Speed, *rec.OthersS, rec.SlowedBy)
	if *rec.Speed >= 1-judge.SpeedWarn {
		// The warm-up is the best run the counted one is judged against:
		// one that others slowed as much leaves nothing to judge.
		t.Skipf("the warm-up (others took %v s of its %.3f s) was as slow as the run beside the competitor: nothing to judge against", b.Runs[0].OthersS, b.Runs[0].WallS)
	}
	if !rec.Slowed() || !strings.Contains(rec.SlowedBy, "others took") {
		t.Errorf("the run beside a competitor from half-way is not said to be slowed by others: speed %.2f, slowed by %q", *rec.Speed, rec.SlowedBy)
	}
	// Where corepin traced the target, the competitor is named, unless
	// busier processes of the machine's filled the list.
	named := strings.Contains(rec.SlowedBy, fmt.Sprintf("(%d)", competitor.Process.Pid))
	if ps := rec.Scheduling.Sharing.Preemptors; len(ps) > 0 && len(ps) < evidence.MaxPreemptors && !named {
		t.Errorf("the competitor (PID %d) is traced %v but not named: %q", competitor.Process.Pid, ps, rec.SlowedBy)
	}
	for _, w := range b.Warnings {
		if strings.Contains(w.Text, "cause unknown") || strings.Contains(w.Text, "from outside this machine's scheduler") {
			t.Errorf("a warning the run's own evidence contradicts: %s", w)
		}
	}
	if rec.WaitCause != judge.WaitBehindOthers {
		t.Errorf("wait cause %q, want %q", rec.WaitCause, judge.WaitBehindOthers)
	}
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

// --speed-gate drops a run held to a third of a CPU by CFS bandwidth for
// its whole length (the test's whole process in the limited cgroup for
// that run), said to be slowed by the limit, and runs it again: the
// statistics are of the planned runs, the dropped one is in run.json with
// its reason.
func TestSpeedGateReRunsASlowedRun(t *testing.T) {
	cfg := config(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a cpu cgroup")
	}
	testcpu.Alone(t)
	cfg.Only, cfg.Isolation, cfg.Runs, cfg.Warmup = []string{"fib"}, Thread, 3, 0
	cfg.SpeedGate = true
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
	// too, which is then dropped as rightly: the test asks that the
	// throttled run 1 is among the dropped, below half its best run's
	// speed, by the limit.
	throttled := false
	for _, d := range b.DroppedRuns {
		s, _ := d.OwnSpeed()
		t.Logf("dropped run %d at speed %.2f: %s", d.Index, s, d.Dropped)
		throttled = throttled || (d.Index == 1 && s < 0.5 && strings.Contains(d.Dropped, "a CPU bandwidth limit held its cgroup back"))
	}
	if !throttled {
		t.Errorf("run 1, throttled to a third, is not among the dropped runs %+v", b.DroppedRuns)
	}
	if b.N != 3 || len(b.Runs) != 3 || len(b.Included) != 3 {
		t.Errorf("statistics of %d runs (included %v) from %d records, want the 3 planned", b.N, b.Included, len(b.Runs))
	}
	if !run.Options.SpeedGate || run.Options.SpeedGateReruns != judge.MaxSpeedReruns {
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
