package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/internal/oncpu"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// sharedPrefix starts the error of a run whose target was shared.
const sharedPrefix = "the target CPU was shared: "

// competitor is a helper: a busy loop pinned to the CPU in
// COREPIN_COMPETE_CPU at the nice value in COREPIN_COMPETE_NICE (the
// default priority without it), which says when it is there and spins
// until it is killed.
func competitor() {
	cpu, _ := strconv.Atoi(os.Getenv("COREPIN_COMPETE_CPU"))
	nice, _ := strconv.Atoi(os.Getenv("COREPIN_COMPETE_NICE"))
	runtime.LockOSThread() // the mask is this thread's: the loop must stay on it
	if err := sched.SetAffinity(0, cpuset.Of(cpu)); err != nil {
		os.Exit(1)
	}
	// The default priority, whatever the thread that forked it had: Go
	// forks from any of the process's threads, and corepin's own may run
	// at a raised priority while a run is on.
	if err := sched.SetNice(0, nice); err != nil {
		os.Exit(1)
	}
	fmt.Println("ready")
	for start := time.Now(); time.Since(start) < time.Hour; { // busy until killed
	}
	os.Exit(1)
}

// startCompetitor runs a competitor on cpu until the test ends.
func startCompetitor(t *testing.T, cpu int) (pid int) {
	t.Helper()
	cmd, err := competitorOn(cpu)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
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

// spinSuite is a busy loop of a sixth of a second of its own CPU time,
// whatever the machine's speed (spinOwnCPU).
func spinSuite(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("[[benchmark]]\nname = \"spin\"\ncmd = %q\nenv = { COREPIN_RUNNER_HELPER = \"spin\" }\n", self)
}

// spinOwnCPU is a helper: it spins until its thread has used a sixth of
// a second of CPU time, or COREPIN_SPIN_MS milliseconds (a fixed count of
// a shell loop took minutes in an emulated guest beside a competitor).
func spinOwnCPU() {
	runtime.LockOSThread()
	d := time.Second / 6
	if ms, err := strconv.Atoi(os.Getenv("COREPIN_SPIN_MS")); err == nil {
		d = time.Duration(ms) * time.Millisecond
	}
	for start := threadTime(); threadTime()-start < d; {
	}
	os.Exit(0)
}

// A run of 13 ms of CPU time beside a competitor at its own priority is
// judged as a long one where the target's account is exact: invalid,
// shared. Where only /proc/stat's ticks count the target, it is too short
// to judge, and the record says why.
func TestShortSharedRunIsInvalid(t *testing.T) {
	skipTimingUnderTCG(t, "the sharing verdict")
	cfg := config(t)
	cfg.Request.Ladder, cfg.Runs, cfg.Warmup, cfg.AllowSharing = session.AffinityOnly(), 1, 0, false
	cfg.Suite = loadSuite(t, strings.Replace(spinSuite(t), `"spin" }`, `"spin", COREPIN_SPIN_MS = "13" }`, 1))
	startCompetitor(t, cfg.Target.ExactCPU)
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := run.Benchmarks[0]
	rec := append(slices.Clone(b.DroppedRuns), b.Runs...)[0] // the first attempt
	skipUnwatched(t, rec)
	if rec.OthersS == nil {
		t.Fatalf("no others' time in the record: sharing %+v", rec.Scheduling.Sharing)
	}
	t.Logf("work %.1f ms of CPU, others %.1f ms (%s), wait %v: %q %s", 1e3*(rec.UserS+rec.SysS), 1e3**rec.OthersS, rec.OthersSource, rec.Scheduling.Sharing.WaitS, rec.Sharing, rec.SharingNote)
	switch {
	case strings.HasPrefix(rec.OthersSource, launch.BusyCpuacct) && (rec.Sharing != judge.SharedInvalid || rec.Valid):
		t.Errorf("a short run beside a competitor, by the exact account: sharing %q (%s), valid %v; want shared (invalid)", rec.Sharing, rec.SharingNote, rec.Valid)
	case !strings.HasPrefix(rec.OthersSource, launch.BusyCpuacct) && (rec.Sharing != judge.TooShort || !strings.Contains(rec.SharingNote, "ticks")):
		t.Errorf("a short run judged from %s: sharing %q, note %q; want too short, by the ticks", rec.OthersSource, rec.Sharing, rec.SharingNote)
	}
}

// A competitor at the same priority on the target takes about half of
// it, by each account of the work's own time: a process's cgroup, and a
// thread of corepin's own (isolation thread), where the tree is corepin
// itself. The run is invalid with the sharing reason, named, and run
// again until the judge stops. What the verdict and the re-runs say of
// the figures (allowed sharing, the limits) is the judge's own tests'.
func TestSharedTargetIsInvalid(t *testing.T) {
	skipTimingUnderTCG(t, "the sharing verdict")
	for _, isolation := range []string{Process, Thread} {
		t.Run(isolation, func(t *testing.T) { sharedRun(t, isolation) })
	}
}

func sharedRun(t *testing.T, isolation string) {
	cfg := config(t)
	cfg.Request.Ladder, cfg.Runs, cfg.Warmup, cfg.AllowSharing = session.AffinityOnly(), 1, 0, false
	cfg.Isolation = isolation
	if isolation == Thread {
		cfg.Only = []string{"sha256"}
	} else {
		cfg.Suite = loadSuite(t, spinSuite(t))
	}
	competitor := startCompetitor(t, cfg.Target.ExactCPU)
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := run.Benchmarks[0].Runs[0]
	if rec.OthersShare == nil || rec.OthersS == nil {
		t.Fatalf("no others' time in the record: sharing %+v", rec.Scheduling.Sharing)
	}
	t.Logf("%s: others took %.3f s, %.0f%% of the target (%s); verdict %q", isolation, *rec.OthersS, 100**rec.OthersShare, rec.OthersSource, rec.Sharing)
	// Where corepin may trace the scheduler (root, BTF), the competitor is
	// named among the preemptors; elsewhere the total stands alone.
	sh := rec.Scheduling.Sharing
	if _, err := oncpu.Supported(); err == nil {
		named := slices.ContainsFunc(sh.Preemptors, func(p evidence.Preemptor) bool { return p.PID == competitor })
		t.Logf("preemptors: %+v", sh.Preemptors)
		switch {
		case named:
		case len(sh.Preemptors) == evidence.MaxPreemptors:
			// go test's other packages on the target took more than it.
			t.Logf("the competitor (PID %d) was outranked by %d busier processes", competitor, evidence.MaxPreemptors)
		default:
			t.Errorf("the competitor (PID %d) is not among the preemptors %+v (%s)", competitor, sh.Preemptors, sh.PreemptorsError)
		}
	} else {
		t.Logf("no preemptors here: %v", err)
	}
	if *rec.OthersShare < 0.4 {
		t.Errorf("others' share %.2f beside a competitor at the same priority, want at least 0.4", *rec.OthersShare)
	}
	const reason = "the target CPU was shared: others took"
	warns := strings.Join(results.WarningTexts(rec.Warnings), "; ")
	if rec.Valid || !strings.Contains(rec.Error, reason) || rec.Sharing != judge.SharedInvalid {
		t.Errorf("shared run: valid %v, sharing %q, error %q", rec.Valid, rec.Sharing, rec.Error)
	}
	// A competitor that stays is seen in every re-run: the run is run
	// again MaxSharedReruns times, each dropped run kept with its reason,
	// and the last says it was not run again.
	dropped := run.Benchmarks[0].DroppedRuns
	skipUnwatched(t, append(slices.Clone(dropped), rec)...)
	if len(dropped) != judge.MaxSharedReruns {
		t.Fatalf("%d dropped runs, want %d: %+v", len(dropped), judge.MaxSharedReruns, dropped)
	}
	for i, d := range dropped {
		if want := fmt.Sprintf("dropped and run again (%d of at most %d)", i+1, judge.MaxSharedReruns); !strings.HasPrefix(d.Dropped, reason) || !strings.HasSuffix(d.Dropped, want) {
			t.Errorf("dropped run %d says %q, want the sharing and %q", i, d.Dropped, want)
		}
	}
	if !strings.Contains(warns, "still shared after 2 re-runs") {
		t.Errorf("the last run does not say it was not run again: %q", warns)
	}
}

// skipUnwatched skips a test of re-runs where the watcher missed its
// ticks in one of them: such a run is invalid by its failed check, which
// no re-run is for, so the count of re-runs says nothing. Beside go
// test's other packages the watcher's CPU is theirs too.
func skipUnwatched(t *testing.T, runs ...results.RunRecord) {
	t.Helper()
	for _, r := range runs {
		for _, c := range r.Checks {
			if !c.Passed && c.What == judge.WatcherKeptUp {
				t.Skipf("run %d: the watcher did not keep up (%s): the run is invalid by that, not re-run", r.Index, c.Detail)
			}
		}
	}
}

// rerunEvents ends the competitor when the runner says it runs a shared
// run again: the competitor was there for the first run only.
type rerunEvents struct {
	noEvents
	end   func()
	notes []string
}

func (e *rerunEvents) Note(s string) {
	if len(e.notes) == 0 {
		e.end()
	}
	e.notes = append(e.notes, s)
}

// A competitor that took the target during one run only costs that run,
// not the benchmark: the run is dropped, kept with its reason, and run
// again, and the re-run counts.
func TestSharedRunIsRunAgain(t *testing.T) {
	skipTimingUnderTCG(t, "the sharing verdict")
	cfg := config(t)
	cfg.Request.Ladder, cfg.Runs, cfg.Warmup, cfg.AllowSharing = session.AffinityOnly(), 1, 0, false
	cfg.Suite = loadSuite(t, spinSuite(t))
	cmd, err := competitorOn(cfg.Target.ExactCPU)
	if err != nil {
		t.Fatal(err)
	}
	end := func() { cmd.Process.Kill(); cmd.Wait() }
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			end()
		}
	})
	events := &rerunEvents{end: end}
	cfg.Events = events
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := run.Benchmarks[0]
	skipUnwatched(t, append(slices.Clone(b.DroppedRuns), b.Runs...)...)
	if len(b.DroppedRuns) == 0 {
		t.Fatalf("no dropped run beside a competitor on the target: %+v", b.Runs)
	}
	first := b.DroppedRuns[0]
	if first.Valid || first.Sharing != judge.SharedInvalid || !strings.HasPrefix(first.Dropped, sharedPrefix) || first.Index != 0 {
		t.Errorf("the dropped run: index %d, valid %v, sharing %q, dropped %q", first.Index, first.Valid, first.Sharing, first.Dropped)
	}
	if len(events.notes) == 0 || !strings.HasPrefix(events.notes[0], "spin run 0: "+sharedPrefix) {
		t.Errorf("the re-run was not said: notes %q", events.notes)
	}
	rec := b.Runs[0]
	if !rec.Valid {
		// go test's other packages run on the same CPUs: the re-runs can
		// be shared by them.
		if rec.Sharing == judge.SharedInvalid {
			t.Skipf("the re-runs were shared too, by go test's other packages (%s): this needs the target idle after the competitor", rec.Error)
		}
		t.Fatalf("the re-run: valid %v, sharing %q, error %q", rec.Valid, rec.Sharing, rec.Error)
	}
	if len(b.Runs) != 1 || !b.Valid || b.N != 1 {
		t.Errorf("runs %d, valid %v, n %d: want the re-run counted", len(b.Runs), b.Valid, b.N)
	}
	var said bool
	for _, w := range b.Warnings {
		said = said || (w.Kind == results.KindSharedRerun && strings.Contains(w.Text, "were dropped and run again"))
	}
	if !said {
		t.Errorf("the benchmark's warnings do not say a run was dropped: %q", results.WarningTexts(b.Warnings))
	}
}

// threads is a helper: four busy threads (GOMAXPROCS 4) that each use
// about 0.1 s of CPU time, so that on one target CPU they take turns.
func threads() {
	runtime.GOMAXPROCS(4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			runtime.LockOSThread()
			for start := threadTime(); threadTime()-start < 100*time.Millisecond; {
			}
		})
	}
	wg.Wait()
	os.Exit(0)
}

func threadTime() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// A program whose four threads take turns on one target CPU, with
// nothing else there, waits a lot behind itself: the run stays valid, the
// others' time is about nothing, and the contention is said as its own.
func TestOwnThreadsAreNotSharing(t *testing.T) {
	cfg := config(t)
	cfg.AllowSharing = false
	cfg.Runs, cfg.Warmup = 1, 0
	self, _ := os.Executable()
	cfg.Suite = loadSuite(t, fmt.Sprintf("[[benchmark]]\nname = \"threads\"\ncmd = %q\nenv = { COREPIN_RUNNER_HELPER = \"threads\" }\n", self))
	run, _, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := run.Benchmarks[0].Runs[0]
	skipUnvouchedInGuest(t, rec)
	sh := rec.Scheduling.Sharing
	if rec.OthersShare == nil {
		t.Fatalf("no others' time: %+v", sh)
	}
	t.Logf("others %.1f%% (%s), waited %v, busy threads %d, cause %q, verdict %q", 100**rec.OthersShare, rec.OthersSource, fmtShare(sh.WaitShare), sh.BusyThreads, rec.WaitCause, rec.Sharing)
	if w := rec.Scheduling.Watch; w == nil {
		t.Logf("no watcher: %s", rec.Scheduling.WatchError)
	} else {
		t.Logf("watcher: %d samples, %d threads, keep-up %+v", w.Samples, len(w.Threads), w.KeepUp)
	}
	if sh.WaitShare == nil {
		t.Skipf("the watcher has none of the work's run and wait times (above): beside go test's other packages it can miss the half-second run; CI runs this alone, where it must not skip")
	}
	if *rec.OthersShare >= judge.DefaultMaxOthers {
		t.Skipf("others took %.1f%% of the target beside this test (go test's other packages run on the same CPUs): this needs the target idle; CI runs it alone", 100**rec.OthersShare)
	}
	warns := strings.Join(results.WarningTexts(rec.Warnings), "; ")
	own := strings.Contains(warns, "busy threads of the work took turns") || strings.Contains(warns, "the work's own threads waited")
	if !rec.Valid || rec.Sharing != judge.NotShared || rec.WaitCause != "own threads" || !own {
		t.Errorf("valid %v (%s), sharing %q, wait cause %q, warnings %q", rec.Valid, rec.Error, rec.Sharing, rec.WaitCause, warns)
	}
}

func fmtShare(p *float64) string {
	if p == nil {
		return "unknown"
	}
	return fmt.Sprintf("%.0f%%", 100**p)
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
