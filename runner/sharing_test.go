package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/suite"
)

// competitor is a helper: a busy loop pinned to the CPU in
// COREPIN_COMPETE_CPU at the default priority, which says when it is
// there and spins until it is killed.
func competitor() {
	cpu, _ := strconv.Atoi(os.Getenv("COREPIN_COMPETE_CPU"))
	runtime.LockOSThread() // the mask is this thread's: the loop must stay on it
	if err := sched.SetAffinity(0, cpuset.Of(cpu)); err != nil {
		os.Exit(1)
	}
	fmt.Println("ready")
	for start := time.Now(); time.Since(start) < time.Hour; { // busy until killed
	}
	os.Exit(1)
}

// startCompetitor runs a competitor on cpu until the test ends.
func startCompetitor(t *testing.T, cpu int) {
	t.Helper()
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "COREPIN_RUNNER_HELPER=compete", "COREPIN_COMPETE_CPU="+strconv.Itoa(cpu))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 6)
	if n, _ := out.Read(buf); string(buf[:n]) != "ready\n" {
		t.Fatalf("the competitor did not start: %q", buf[:n])
	}
}

func loadSuite(t *testing.T, text string) *suite.Suite {
	t.Helper()
	path := filepath.Join(t.TempDir(), "suite.toml")
	os.WriteFile(path, []byte(text), 0o644)
	s, err := suite.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// spinSuite is a busy loop of about a third of a second of CPU time.
const spinSuite = `
[[benchmark]]
name = "spin"
cmd = "sh"
args = ["-c", "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done"]
`

// A competitor at the same priority on the target makes the work wait
// about half its time: the run is invalid with the sharing reason, and
// valid with a warning when sharing is allowed.
func TestSharedTargetIsInvalid(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprintf("allow=%v", allow), func(t *testing.T) { sharedRun(t, allow) })
	}
}

func sharedRun(t *testing.T, allow bool) {
	{
		cfg := config(t)
		cfg.Request.Ladder, cfg.Runs, cfg.Warmup, cfg.AllowSharing = session.AffinityOnly(), 1, 0, allow
		cfg.Suite = loadSuite(t, spinSuite)
		startCompetitor(t, cfg.Target.ExactCPU)
		// go test runs other packages beside this one, on the same few
		// CPUs: a run in which they held up the competitor more than the
		// work is tried again, twice at most.
		var rec results.RunRecord
		for try := 1; ; try++ {
			run, _, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			rec = run.Benchmarks[0].Runs[0]
			sh := rec.Scheduling.Sharing
			if sh != nil && sh.WaitShare != nil && *sh.WaitShare >= 0.4 {
				break
			}
			if try == 3 {
				t.Fatalf("allow %v: sharing %+v, want a measured wait of at least 40%%", allow, sh)
			}
			if sh != nil && sh.WaitShare != nil {
				t.Logf("try %d: the work waited only %.0f%% of its time beside the competitor; again", try, 100**sh.WaitShare)
			}
		}
		sh := rec.Scheduling.Sharing
		others := "unknown"
		if rec.OthersCPUS != nil {
			others = fmt.Sprintf("%.3f s", *rec.OthersCPUS)
		}
		t.Logf("allow %v: waited %.0f%% of its time, %.2f CPU per wall second; others took %s of the target", allow, 100**sh.WaitShare, *sh.CPUPerWall, others)
		const reason = "the target CPU was shared: the work waited"
		if allow {
			skipUnvouchedInGuest(t, rec)
		}
		switch {
		case !allow && (rec.Valid || !strings.Contains(rec.Error, reason)):
			t.Errorf("shared run: valid %v, error %q", rec.Valid, rec.Error)
		case allow && (!rec.Valid || len(rec.Warnings) == 0 || !strings.Contains(rec.Warnings[0], reason)):
			t.Errorf("shared run with --allow-sharing: valid %v, error %q, warnings %q", rec.Valid, rec.Error, rec.Warnings)
		}
	}
}

// A benchmark that times out ends with its whole tree, the looping
// grandchild of its shell included, and the next one runs.
func TestTimeoutEndsTheTreeAndTheSuiteGoesOn(t *testing.T) {
	cfg := config(t)
	marker := filepath.Join(t.TempDir(), "loop")
	cfg.Suite = loadSuite(t, fmt.Sprintf(`
[[benchmark]]
name = "hang"
cmd = "sh"
args = ["-c", "sh -c 'while :; do :; done' & echo $! > %s; wait"]
timeout = "1s"

[[benchmark]]
name = "next"
cmd = "true"
`, marker))
	cfg.Runs, cfg.Warmup = 1, 0
	start := time.Now()
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	hang, next := run.Benchmarks[0].Runs[0], run.Benchmarks[1].Runs[0]
	c := hang.Scheduling.Child
	if !c.TimedOut || c.Signal == nil || c.ExitCode != nil || hang.Valid {
		t.Errorf("hang: %+v, valid %v: want timed out with a signal, no exit code", c, hang.Valid)
	}
	if tr := hang.Scheduling.Tree; tr.Ended < 2 || tr.Left != 0 {
		t.Errorf("hang's tree %+v: want the shell and its loop ended, nothing left", tr)
	}
	data, _ := os.ReadFile(marker)
	if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err != nil || processRuns(pid) {
		t.Errorf("the looping grandchild %q still runs (or never started)", data)
	}
	skipUnvouchedInGuest(t, next)
	if !next.Valid {
		t.Errorf("next: %+v", next)
	}
	t.Logf("the suite took %v with a 1 s timeout", time.Since(start))
}

func processRuns(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(data), ") Z ")
}

// A command killed by a signal says so, and the benchmark says why it is
// invalid.
func TestKilledCommandSaysBySignal(t *testing.T) {
	cfg := config(t)
	cfg.Runs, cfg.Warmup = 1, 0
	cfg.Suite = loadSuite(t, "[[benchmark]]\nname = \"killed\"\ncmd = \"sh\"\nargs = [\"-c\", \"kill -9 $$\"]\n")
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Benchmarks[0].WhyInvalid(); !strings.HasPrefix(got, "run 0: killed by SIGKILL") {
		t.Errorf("why invalid: %q", got)
	}
}
