package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/results"
)

// lastLine is the results folder corepin run prints last.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// On a quiet machine the README's main job, as a new user runs it (no
// --allow-sharing), passes and says at most three lines of warnings: the
// work's own threads waiting for each other are not sharing. Beside go
// test's other packages the target is not quiet, which the runs' own
// others' time says; the test then skips, and CI runs it alone.
func TestQuietRunWarnings(t *testing.T) {
	skipInShort(t)
	// Beside go test's other packages the target is shared for real and
	// this skips after 10 s of runs: it runs where nothing else does.
	if os.Getenv("COREPIN_ALONE") == "" {
		t.Skip("judges a quiet machine's run: set COREPIN_ALONE=1 where nothing else runs (as .ci/run's step after the tests does)")
	}
	requireExec(t)
	out, errOut, code := corepin(t, "run", "--quick", "--out", t.TempDir())
	run, err := results.Load(lastLine(out))
	if err != nil {
		t.Fatalf("exit %d, no results: %v\n%s\n%s", code, err, out, errOut)
	}
	for _, b := range run.Benchmarks {
		for _, r := range b.Runs {
			if r.OthersShare != nil && *r.OthersShare >= 0.02 {
				t.Skipf("not a quiet machine: others took %.0f%% of the target in %s run %d (go test's other packages?); CI runs this alone", 100**r.OthersShare, b.Name, r.Index)
			}
		}
	}
	var warnings []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "warning:") {
			warnings = append(warnings, line)
		}
	}
	if code != 0 || run.Score == nil || len(warnings) > 3 {
		t.Errorf("exit %d, score %v, %d warning lines (want at most 3):\n%s\n%s", code, run.Score, len(warnings), out, errOut)
	}
}

func TestRunQuick(t *testing.T) {
	skipInShort(t)
	cpu := requireExec(t)
	// go test runs other packages' tests beside this one: the target is
	// shared for real.
	out, errOut, code := corepin(t, "run", "--quick", "--runs", "2", "--warmup", "0", "--allow-sharing", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	dir := lastLine(out)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Benchmarks) != 7 || run.Score == nil || run.Target.ExactCPU != cpu {
		t.Fatalf("%d benchmarks, score %v, target %d", len(run.Benchmarks), run.Score, run.Target.ExactCPU)
	}
	for _, b := range run.Benchmarks {
		if !b.Valid {
			t.Errorf("%s is invalid: %v", b.Name, b.Warnings)
		}
		for _, r := range b.Runs {
			if r.Scheduling.Readback.CPU != cpu {
				t.Errorf("%s run %d read back CPU %d", b.Name, r.Index, r.Scheduling.Readback.CPU)
			}
			if st, err := os.Stat(filepath.Join(dir, r.TelemetryCSV)); err != nil || st.Size() < 40 {
				t.Errorf("%s run %d: telemetry file %v", b.Name, r.Index, err)
			}
		}
	}
	// benchstat itself reads bench.txt.
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Log("go not on PATH: benchstat not tried")
		return
	}
	// Run as another user (the nobody checks), go cannot use the module
	// cache, which belongs to whoever filled it.
	if cache, err := exec.Command(gobin, "env", "GOMODCACHE").Output(); err == nil {
		if _, err := os.Stat(strings.TrimSpace(string(cache))); err != nil {
			t.Logf("module cache not usable (%v): benchstat not tried", err)
			return
		}
	}
	bs := exec.Command(gobin, "run", "golang.org/x/perf/cmd/benchstat", filepath.Join(dir, "bench.txt"))
	bsOut, err := bs.CombinedOutput()
	if err != nil || !strings.Contains(string(bsOut), "Fib") || !strings.Contains(string(bsOut), "sec/op") {
		t.Errorf("benchstat: %v\n%s", err, bsOut)
	}
}

func TestRunBadSuites(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		// A suite file's content is the job's (1), as a command it names
		// that does not exist; an unreadable file is the command line's (2).
		{[]string{"run", write("syntax.toml", "[[benchmark]]\nname = \n")}, exitFailure, "syntax.toml:2:"},
		{[]string{"run", write("key.toml", "[[benchmark]]\nname = \"a\"\ncmd = \"true\"\nrnus = 2\n")}, exitFailure, `key.toml:4:1: unknown key "benchmark.rnus"`},
		{[]string{"run", "--out", t.TempDir(), write("missing.toml", "[[benchmark]]\nname = \"a\"\ncmd = \"./nothing-here\"\n")}, exitFailure, "nothing-here"},
		{[]string{"run", filepath.Join(dir, "absent.toml")}, exitUsage, "no such file"},
		{[]string{"run", "--isolation", "fork"}, exitUsage, "isolation"},
		{[]string{"run", "--only", "nope", "--out", t.TempDir()}, 2, `no benchmark named "nope"`},
	}
	for _, tt := range tests {
		_, errOut, code := corepin(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.msg) {
			t.Errorf("corepin %s: exit %d, %q; want %d and %q", strings.Join(tt.args, " "), code, errOut, tt.code, tt.msg)
		}
	}
}

func TestRunCtrlC(t *testing.T) {
	requireExec(t)
	dir := t.TempDir()
	suitePath := filepath.Join(dir, "s.toml")
	ready := filepath.Join(dir, "slow.pid")
	// The slow benchmark writes its PID (the shell's, which then becomes
	// sleep) once it runs: the readiness marker for Ctrl-C.
	os.WriteFile(suitePath, []byte(fmt.Sprintf(`
[settings]
runs = 1
warmup = 0
[[benchmark]]
name = "quick"
cmd = "true"
reference_seconds = 0.001
[[benchmark]]
name = "slow"
cmd = "sh"
args = ["-c", "echo $$ > %s.tmp && mv %s.tmp %s && exec sleep 30"]
`, ready, ready, ready)), 0o644)
	exe, _ := os.Executable()
	out := filepath.Join(dir, "out")
	cmd := cliCommand(t, exe, "run", "-q", "--out", out, suitePath)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	slow := waitForPID(t, ready, done)
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		syscall.Kill(slow, syscall.SIGKILL)
		t.Fatal("corepin run did not stop after Ctrl-C")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	run, err := results.Load(lastLine(stdout.String()))
	if err != nil {
		t.Fatalf("%v (stdout %q)", err, stdout.String())
	}
	// The finished run is kept whether or not it is valid: on a busy or
	// emulated machine a run of true can be invalid (a wait for the CPU
	// past --max-wait, say; it was once in the hole guest), not lost.
	if !run.Interrupted || len(run.Benchmarks[0].Runs) != 1 || len(run.Benchmarks[1].Runs) != 0 {
		t.Errorf("interrupted %v, first runs %d, slow runs %d", run.Interrupted, len(run.Benchmarks[0].Runs), len(run.Benchmarks[1].Runs))
	}
	if !run.Benchmarks[0].Valid {
		t.Logf("the finished run is kept, invalid: %v", run.Benchmarks[0].Warnings)
	}
	// corepin has reaped the interrupted command, so its PID names no
	// sleep any more.
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", slow)); err == nil && strings.Contains(string(cmdline), "sleep") {
		t.Errorf("the interrupted command %d is still running", slow)
		syscall.Kill(slow, syscall.SIGKILL)
	}
}

// waitForPID waits until path holds a process ID, or the command ends.
func waitForPID(t *testing.T, path string, done <-chan error) int {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if data, err := os.ReadFile(path); err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return pid
		}
		select {
		case err := <-done:
			t.Fatalf("corepin run ended before the slow benchmark started: %v", err)
		case <-tick.C:
		}
	}
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, scale float64) string {
		f, err := results.Create(dir, name, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		b := results.Benchmark{Name: "<b>fib</b>", ReferenceS: 1}
		for i := range 8 {
			b.Runs = append(b.Runs, results.RunRecord{Index: i, WallS: scale * (1 + 0.01*float64(i%3)), Valid: true})
		}
		b.Summarize()
		r := &results.Run{Schema: results.Schema, State: results.StateFinished, Benchmarks: []results.Benchmark{b}}
		r.ComputeScore()
		if err := f.Save(r); err != nil {
			t.Fatal(err)
		}
		return f.Path
	}
	old, new := mk("old", 1), mk("new", 0.5)
	page := filepath.Join(dir, "cmp.html")
	out, errOut, code := corepin(t, "compare", old, new, "--html", page)
	if code != 0 || !strings.Contains(out, "faster") || !strings.Contains(out, "(+100.0%)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	html, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(html), "&lt;b&gt;fib&lt;/b&gt;") || strings.Contains(string(html), "<b>fib") {
		t.Errorf("comparison page: %v", err)
	}
	for _, format := range []string{"csv", "json"} {
		if _, _, code := corepin(t, "compare", old, new, "--format", format); code != 0 {
			t.Errorf("--format %s: exit %d", format, code)
		}
	}
	if _, _, code := corepin(t, "compare", old, filepath.Join(dir, "none")); code != exitFailure {
		t.Errorf("a missing run: exit %d", code)
	}
}

// As nobody, a thread-isolated run whose work thread cannot be given back
// its attributes (nice 5 cannot be lowered again without privilege) ends
// that thread and keeps the measurement: every run is recorded and valid,
// with a warning that says why the thread was ended.
func TestRunThreadIsolationUnprivileged(t *testing.T) {
	skipInShort(t)
	requireExec(t)
	out := filepath.Join(nobody.Dir(t), "out")
	cmd := nobody.Command(t, nobody.Executable(t), "run", "--quick", "--isolation", "thread", "--nice", "5",
		"--only", "fib", "--runs", "2", "--warmup", "0", "--allow-sharing", "-q", "--out", out)
	cmd.Env = append(os.Environ(), "COREPIN_AS_CLI=1")
	output, err := cmd.CombinedOutput()
	dir := lastLine(string(output))
	if code := cmd.ProcessState.ExitCode(); code == exitFailure && unvouchedInGuest(dir) {
		t.Skip("inside an emulated guest the watcher missed its ticks, so the runs are rightly not vouched for")
	} else if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, output)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Benchmarks) != 1 {
		t.Fatalf("%d benchmarks, want fib alone", len(run.Benchmarks))
	}
	b := run.Benchmarks[0]
	ended := false
	for _, w := range b.Warnings {
		ended = ended || strings.Contains(w.Text, "could not be put back, so it was ended")
	}
	if b.CompletedRuns != 2 || !b.Valid || !ended {
		t.Errorf("as nobody: %d of %d runs, valid %v, warnings %v", b.CompletedRuns, b.PlannedRuns, b.Valid, b.Warnings)
	}
	if strings.Contains(string(output), "ClearTaint") {
		t.Errorf("an internal message reached the user:\n%s", output)
	}
}
