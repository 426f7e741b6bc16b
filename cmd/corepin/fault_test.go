package main

// The fault suite: each test is an attack that once made corepin lose or
// invent results, crash, starve or ignore a signal. corepin runs as a
// separate process (this test binary acting as corepin), attacked at a
// moment told by a readiness marker (the journal's length, a child's
// existence), never by a fixed sleep.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cmd/corepin/internal/runner"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/results"
)

// faultHelper is the test binary as a benchmark command: "spew" writes
// COREPIN_SPEW_MB megabytes to standard output as fast as it can.
func faultHelper(name string) {
	if name != "spew" {
		return
	}
	mb, _ := strconv.Atoi(os.Getenv("COREPIN_SPEW_MB"))
	block := bytes.Repeat([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"), 1<<14) // 1 MiB of lines
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	for range mb {
		w.Write(block)
	}
	w.WriteString("end\n")
	w.Flush()
	os.Exit(0)
}

// corepinProcess is this test binary started as corepin.
func corepinProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "COREPIN_AS_CLI=1")
	return cmd
}

// waitFor polls cond until it holds; the test's own deadline ends a wait
// for something that never comes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if dl, ok := t.Deadline(); ok && time.Until(dl) < 5*time.Second {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// journalLines counts the finished runs in the one results folder under out.
func journalLines(out string) (string, int) {
	dirs, _ := filepath.Glob(filepath.Join(out, "*", results.JournalFile))
	if len(dirs) != 1 {
		return "", 0
	}
	data, _ := os.ReadFile(dirs[0])
	return filepath.Dir(dirs[0]), bytes.Count(data, []byte("\n"))
}

// noStackTrace fails when output holds a Go panic or stack trace.
func noStackTrace(t *testing.T, what, output string) {
	t.Helper()
	if strings.Contains(output, "goroutine ") || strings.Contains(output, "panic:") {
		t.Errorf("%s printed a stack trace:\n%s", what, output)
	}
}

// TestFaultSignalsLeaveOnlyCompletedRuns: SIGKILL, SIGHUP and SIGTERM at
// several moments of a quick run leave a folder whose statistics, bench.txt,
// summary.csv, page and comparison hold only the completed runs, and say
// that the run did not finish; SIGPIPE is ignored.
func TestFaultSignalsLeaveOnlyCompletedRuns(t *testing.T) {
	t.Parallel()
	requireExec(t)
	skipSlowUnderTCG(t, "five runs of the quick suite's fib and sha256, each killed part-way,")
	for _, tt := range []struct {
		sig   syscall.Signal
		after int // journal lines
		code  int // corepin's exit status; -1 for killed
		state string
	}{
		{syscall.SIGKILL, 1, -1, results.StateCrashed},
		{syscall.SIGKILL, 3, -1, results.StateCrashed},
		{syscall.SIGHUP, 1, 129, results.StateInterrupted},
		{syscall.SIGTERM, 2, 143, results.StateInterrupted},
		{syscall.SIGPIPE, 1, 0, results.StateFinished},
	} {
		t.Run(fmt.Sprintf("%s-after-%d", unix.SignalName(tt.sig), tt.after), func(t *testing.T) {
			out := t.TempDir()
			tag := fmt.Sprintf("COREPIN_FAULT_TAG=%d-%s", os.Getpid(), t.Name())
			// --mode soft --accept any: what is judged is how a signal ends
			// the run, not whether its watcher kept up (in a TCG guest it
			// may not, and exact mode then makes the run invalid and the
			// exit 1) nor what priority it got (as adb's shell user, none).
			cmd := corepinProcess(t, "run", "--quick", "--only", "fib,sha256", "--runs", "2", "--warmup", "0", "--allow-sharing", "--mode", "soft", "--accept", "any", "--out", out, "-q")
			cmd.Env = append(cmd.Env, tag)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var dir string
			waitFor(t, "the journal", func() bool {
				var n int
				dir, n = journalLines(out)
				return n >= tt.after
			})
			cmd.Process.Signal(tt.sig)
			err := cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			if code == exitFailure && tt.code == 0 && unvouchedInGuest(dir) {
				t.Logf("exit 1: in this emulated guest the watcher missed its ticks, so the runs were not vouched for")
			} else if code != tt.code {
				t.Fatalf("exit %d (%v), want %d\n%s", code, err, tt.code, stderr.String())
			}
			noStackTrace(t, "corepin run", stderr.String())
			if tt.sig == syscall.SIGKILL {
				// The benchmark's process died with corepin.
				waitFor(t, "the benchmark to die with corepin", func() bool { return taggedProcesses(tag) == 0 })
			}
			_, completed := journalLines(out)
			// The guard settled a crashed folder from its journal (it is
			// tagged, and has ended); report shows it.
			rc := corepinProcess(t, "report", dir)
			if o, err := rc.CombinedOutput(); err != nil {
				t.Fatalf("report: %v\n%s", err, o)
			}
			run, err := results.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if run.State != tt.state {
				t.Errorf("state %q, want %q", run.State, tt.state)
			}
			n := 0
			for _, b := range run.Benchmarks {
				n += len(b.Runs)
				if b.N == 0 && (b.MedianS != 0 || b.Ratio != nil) {
					t.Errorf("%s has no run and a result: %+v", b.Name, b.Stats)
				}
			}
			if n != completed {
				t.Errorf("run.json holds %d runs, the journal %d", n, completed)
			}
			bench, _ := os.ReadFile(filepath.Join(dir, "bench.txt"))
			if got := strings.Count(string(bench), " ns/op"); got != completed {
				t.Errorf("bench.txt holds %d results for %d completed runs:\n%s", got, completed, bench)
			}
			if !strings.Contains(string(bench), "corepin-state: "+tt.state) {
				t.Errorf("bench.txt does not say the state:\n%s", bench)
			}
			csv, _ := os.ReadFile(filepath.Join(dir, "summary.csv"))
			if strings.Contains(string(csv), ",0,0,") && tt.state != results.StateFinished {
				t.Errorf("summary.csv holds zero times:\n%s", csv)
			}
			page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
			if tt.state != results.StateFinished && !strings.Contains(string(page), tt.state+":") {
				t.Errorf("the page does not say the run is %s", tt.state)
			}
			// Compared with a copy of itself, an unfinished run gives no
			// verdict for what did not complete, and never -100%.
			again := filepath.Join(t.TempDir(), "again")
			if out, err := exec.Command("cp", "-a", dir, again).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
			cc := corepinProcess(t, "compare", dir, again)
			o, _ := cc.CombinedOutput()
			noStackTrace(t, "compare", string(o))
			if strings.Contains(string(o), "-100") {
				t.Errorf("compare:\n%s", o)
			}
			if tt.state != results.StateFinished && !strings.Contains(string(o), "withheld") {
				t.Errorf("compare gives verdicts on an unfinished run:\n%s", o)
			}
		})
	}
}

// taggedProcesses counts the processes whose environment holds tag.
func taggedProcesses(tag string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	n := 0
	for _, p := range procs {
		if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte(tag+"\x00")) {
			n++
		}
	}
	return n
}

// TestFaultPipeToHead: corepin run 2>&1 | head -1 completes the run.
func TestFaultPipeToHead(t *testing.T) {
	t.Parallel()
	requireExec(t)
	out := t.TempDir()
	// --mode soft --accept any, as in TestFaultSignalsLeaveOnlyCompletedRuns:
	// under TCG a watcher that missed its ticks made an exact run invalid
	// (exit 1), and soft mode's own rule wants a priority the shell user
	// cannot have.
	cmd := corepinProcess(t, "run", "--quick", "--only", "fib", "--runs", "2", "--warmup", "0", "--allow-sharing", "--mode", "soft", "--accept", "any", "--out", out)
	r, w, _ := os.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	line, _ := bufio.NewReader(r).ReadString('\n') // head -1
	r.Close()
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d (%v) after the reader left; its line was %q", code, err, line)
	}
	dir, n := journalLines(out)
	run, err := results.Load(dir)
	if err != nil || run.State != results.StateFinished || n != 2 {
		t.Errorf("%v: state %v with %d runs", err, run, n)
	}
}

// TestFaultExperimentsEndOnSignals: SIGINT, SIGHUP and SIGTERM end each
// experiment with 128+N and its partial result.
func TestFaultExperimentsEndOnSignals(t *testing.T) {
	t.Parallel()
	requireExec(t)
	for _, c := range []struct {
		name string
		sig  syscall.Signal
	}{
		{"qos", syscall.SIGINT}, {"partition", syscall.SIGINT},
		{"qos", syscall.SIGHUP}, {"partition", syscall.SIGTERM},
		{"partition-bandwidth", syscall.SIGINT},
	} {
		t.Run(c.name+"/"+unix.SignalName(c.sig), func(t *testing.T) {
			out := t.TempDir()
			name, by, _ := strings.Cut(c.name, "-")
			args := []string{"experiment", name, "--out", out}
			if name == "partition" {
				// Named slow CPUs are emulated on any machine; a machine
				// with real slower cores would emulate nothing, and the
				// emulation is the readiness marker: its competing load
				// processes, or its bandwidth cgroup.
				usable := testcpu.Usable(t)
				if usable.Len() < 2 {
					t.Skipf("needs two usable CPUs (usable: %s)", usable)
				}
				if by == "" {
					by = "load"
				}
				if _, err := os.Stat(filepath.Join(cpuV1(), "cpu.cfs_quota_us")); by == "bandwidth" && (err != nil || os.Geteuid() != 0) {
					t.Skipf("--slow-by bandwidth needs root and cgroup v1's cpu controller: %v", err)
				}
				args = append(args, "--slow-cpus", strconv.Itoa(usable.Last()), "--slow-by", by)
			}
			cmd := corepinProcess(t, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cgroups := filepath.Join(cpuV1(), fmt.Sprintf("corepin-bandwidth-%d-*", cmd.Process.Pid))
			emulating := func() bool {
				if by == "bandwidth" {
					m, _ := filepath.Glob(cgroups)
					return len(m) > 0
				}
				return hasChild(cmd.Process.Pid)
			}
			waitFor(t, "the emulation", func() bool { return emulating() || ended(cmd.Process.Pid) })
			if ended(cmd.Process.Pid) {
				cmd.Wait()
				t.Fatalf("ended before its emulation started: %v\n%s", cmd.ProcessState, stderr.String())
			}
			defer func() {
				if left, _ := filepath.Glob(cgroups); len(left) > 0 {
					t.Errorf("bandwidth cgroups left after %v: %v", c.sig, left)
				}
			}()
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			t.Logf("ended %v after %v", time.Since(sent).Round(time.Millisecond), c.sig)
			if code, want := cmd.ProcessState.ExitCode(), 128+int(c.sig); code != want {
				t.Fatalf("exit %d, want %d\n%s", code, want, stderr.String())
			}
			data, err := os.ReadFile(filepath.Join(out, "experiment-"+name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				Interrupted bool `json:"interrupted"`
			}
			if json.Unmarshal(data, &res); !res.Interrupted {
				t.Errorf("the partial result does not say it was interrupted")
			}
		})
	}
}

// ended says the child pid has exited and waits to be reaped.
func ended(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || data[i+2] == 'Z'
}

func hasChild(pid int) bool {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, p := range tasks {
		if data, _ := os.ReadFile(p); len(bytes.TrimSpace(data)) > 0 {
			return true
		}
	}
	return false
}

// TestFaultEarlySIGINTReachesTheCommand: a SIGINT a millisecond after exec
// starts is never lost, in 200 tries: once corepin catches signals (from
// its main on) the command gets it as soon as it runs
// and exits 130. A signal that comes sooner, while the Go runtime itself
// starts, ends corepin with the runtime's default before anything is
// started (a Go program cannot catch a signal before its runtime runs:
// a minimal one with signal.Notify first thing in main dies of most
// SIGINTs sent 1 ms after its start on this machine); that is counted and
// logged, as nothing runs to its end then either.
func TestFaultEarlySIGINTReachesTheCommand(t *testing.T) {
	t.Parallel()
	requireExec(t)
	lost, beforeCatch := 0, 0
	for i := range 200 {
		cmd := corepinProcess(t, "exec", "--watch", "0", "-q", "--", "sleep", "3")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // the attack: a fixed moment after the start
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		switch {
		case ws.Signaled() && ws.Signal() == syscall.SIGINT:
			beforeCatch++ // corepin itself died: before its handler, the runtime's default
		case ws.ExitStatus() != 130:
			lost++
			t.Errorf("try %d: exit %d, the SIGINT did not reach the command", i, ws.ExitStatus())
		}
	}
	t.Logf("200 tries: %d lost, %d reached the command, %d ended corepin before its handler was in place", lost, 200-lost-beforeCatch, beforeCatch)
}

// TestFaultBadInput: every bad input gets a clear message and exit 1 or
// 2, never a stack trace.
func TestFaultBadInput(t *testing.T) {
	dir := t.TempDir()
	suite := func(name, body string) string {
		p := filepath.Join(dir, name+".toml")
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	bench := "[[benchmark]]\nname = \"t\"\ncmd = \"true\"\n"
	big := filepath.Join(dir, "big.toml")
	os.WriteFile(big, bytes.Repeat([]byte("# padding\n"), 300000), 0o644)
	steps := filepath.Join(dir, "steps")
	os.MkdirAll(steps, 0o755)
	os.WriteFile(filepath.Join(steps, "run.json"), []byte(`{"schema":"corepin.run/v1","state":"finished","benchmarks":[{"name":"x","runs":[{"scheduling":{"ladder":{"name":"l","accepted_step":9,"steps":[]}},"telemetry_csv":"../../../../etc/passwd"}]}]}`), 0o644)
	for _, args := range [][]string{
		{"watch", "--period", "0", "1"},
		{"watch", "--period", "-1s", "1"},
		{"run", "--runs", "100000000"},
		{"run", "--runs", "-1"},
		{"run", "--telemetry", "1ns"},
		{"run", "--telemetry", "-1s"},
		{"run", "--watch", "1ns"},
		{"run", "--watch", "-1s"},
		{"exec", "--timeout", "-1s", "--", "true"},
		{"exec", "--watch", "1ns", "--", "true"},
		{"exec", "--cpu", "-1", "--", "true"},
		{"exec", "--cpus", "", "--", "true"},
		{"exec", "--cpu", "99999", "--", "true"},
		{"exec", "--report", filepath.Join(dir, "no", "such", "r.json"), "--", "true"},
		{"telemetry", "--out", filepath.Join(dir, "no", "such", "t.csv")},
		{"experiment", "qos", "--out", "/proc/corepin-no"},
		{"experiment", "partition", "--out", "/proc/corepin-no"},
		{"run", suite("nan", bench+"reference_seconds = nan\n")},
		{"run", suite("inf", bench+"reference_seconds = inf\n")},
		{"run", suite("timeout", bench+"timeout = \"-5s\"\n")},
		{"run", suite("env", bench+"env = { \"A=B\" = \"1\" }\n")},
		{"run", suite("name", strings.Replace(bench, `"t"`, `"`+strings.Repeat("n", 250)+`"`, 1))},
		{"run", suite("dir", bench+"dir = \"no/such\"\n")},
		{"run", suite("expected", bench+"[[benchmark.check]]\nstdout = true\nexpected = \"no-such.out\"\n")},
		{"run", big},
	} {
		stdout, stderr, code := corepin(t, args...)
		noStackTrace(t, strings.Join(args, " "), stdout+stderr)
		if code != exitUsage && code != exitFailure {
			t.Errorf("corepin %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		if !strings.HasPrefix(stderr, "corepin: ") {
			t.Errorf("corepin %s: no message: %q", strings.Join(args, " "), stderr)
		}
	}
	// A run.json whose accepted step is past its steps, and whose
	// telemetry lies outside its folder: a page, no panic, no reading.
	stdout, stderr, code := corepin(t, "report", steps)
	noStackTrace(t, "report", stdout+stderr)
	if code != 0 {
		t.Errorf("report: exit %d: %s", code, stderr)
	}
	page, _ := os.ReadFile(filepath.Join(steps, "report.html"))
	if bytes.Contains(page, []byte("root:")) {
		t.Error("the page holds /etc/passwd")
	}
}

// TestFaultLargeOutputStaysSmall: a benchmark writing 200 MB to standard
// output keeps corepin's memory under 100 MB, half of that: corepin
// streams the output to its file.
func TestFaultLargeOutputStaysSmall(t *testing.T) {
	t.Parallel()
	skipInShort(t) // the race detector's own memory would be in the figure
	requireExec(t)
	exe, _ := os.Executable()
	dir := t.TempDir()
	suite := filepath.Join(dir, "spew.toml")
	os.WriteFile(suite, []byte(fmt.Sprintf("[[benchmark]]\nname = \"spew\"\ncmd = %q\nenv = { COREPIN_FAULT_HELPER = \"spew\", COREPIN_SPEW_MB = \"200\" }\n"+
		"  [[benchmark.check]]\n  stdout = true\n  regex = \"^end$\"\n", exe)), 0o644)
	cmd := corepinProcess(t, "run", suite, "--runs", "1", "--warmup", "0", "--allow-sharing", "--out", filepath.Join(dir, "out"))
	o, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB, the largest of corepin and what it waited for
	t.Logf("200 MB of output: corepin's maximum RSS %d MB", rss>>10)
	if rss > 100<<10 {
		t.Errorf("maximum RSS %d MB, over 100 MB", rss>>10)
	}
	outs, _ := filepath.Glob(filepath.Join(dir, "out", "*", "outputs", "spew-0.stdout"))
	if len(outs) != 1 {
		t.Fatal("no output file")
	}
	if st, _ := os.Stat(outs[0]); st.Size() != 200<<20+4 {
		t.Errorf("the output file holds %d bytes", st.Size())
	}
}

// TestFaultLargeSuiteStaysSmall: a suite of 1 MiB, its one command's
// arguments, run 40 times, writes its command once: run.json and the
// journal stay under 10 MB and corepin's memory under 100 MB.
func TestFaultLargeSuiteStaysSmall(t *testing.T) {
	t.Parallel()
	skipInShort(t) // the race detector's own memory would be in the figure
	requireExec(t)
	dir := t.TempDir()
	const marker = "corepin-large-suite-argument"
	var b strings.Builder
	b.WriteString("[[benchmark]]\nname = \"big\"\ncmd = \"true\"\nargs = [\n")
	for b.Len() < suite.MaxFileSize-2000 {
		fmt.Fprintf(&b, "%q,\n", marker+strings.Repeat("x", 1000-len(marker)))
	}
	b.WriteString("]\n")
	path := filepath.Join(dir, "big.toml")
	os.WriteFile(path, []byte(b.String()), 0o644)
	out := filepath.Join(dir, "out")
	cmd := corepinProcess(t, "run", path, "--runs", "40", "--warmup", "0", "--allow-sharing", "-q", "--out", out)
	o, err := cmd.CombinedOutput()
	if err != nil && unvouchedInGuest(lastLine(string(o))) {
		t.Skip("every invalid run is the emulated guest's missed watcher ticks")
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	folder, runs := journalLines(out)
	runJSON, _ := os.ReadFile(filepath.Join(folder, "run.json"))
	journal, _ := os.ReadFile(filepath.Join(folder, results.JournalFile))
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB
	t.Logf("a %d KiB suite, %d runs: run.json %d KB, journal %d KB, maximum RSS %d MB", b.Len()>>10, runs, len(runJSON)>>10, len(journal)>>10, rss>>10)
	args := strings.Count(b.String(), marker)
	if runs != 40 || bytes.Count(runJSON, []byte(marker)) != args || bytes.Contains(journal, []byte(marker)) {
		t.Errorf("%d runs; the command's %d arguments are %d times in run.json and %d times in the journal: want them in the benchmark alone",
			runs, args, bytes.Count(runJSON, []byte(marker)), bytes.Count(journal, []byte(marker)))
	}
	if n := len(runJSON) + len(journal); n > 10<<20 {
		t.Errorf("run.json and the journal hold %d MB, over 10 MB", n>>20)
	}
	if rss > 100<<10 {
		t.Errorf("maximum RSS %d MB, over 100 MB", rss>>10)
	}
}

// More runs than one run records are refused before anything starts,
// as a wrong command line, with the limit said.
func TestFaultTooManyRunsRefused(t *testing.T) {
	// A file in the results folder's place: a run that started would
	// fail there, with another message.
	out := filepath.Join(t.TempDir(), "file")
	os.WriteFile(out, nil, 0o644)
	_, stderr, code := corepin(t, "run", "--runs", strconv.Itoa(runner.MaxTotalRuns), "--out", out)
	if code != exitUsage || !strings.Contains(stderr, fmt.Sprintf("one corepin run records at most %d", runner.MaxTotalRuns)) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// unvouchedInGuest says whether, inside an emulated test/machines guest,
// every invalid run in the results folder dir was invalid only because
// its watcher missed its ticks: TCG runs the guest's CPUs in turns on the
// host's, an emulation limit and not the work's.
func unvouchedInGuest(dir string) bool {
	if os.Getenv("MACHINE_SHAPE") == "" {
		return false
	}
	run, err := results.Load(dir)
	if err != nil {
		return false
	}
	seen := false
	for _, b := range run.Benchmarks {
		for _, r := range b.Runs {
			if r.Valid {
				continue
			}
			if r.Error != "" {
				return false
			}
			for _, c := range r.Checks {
				if !c.Passed && c.What != "the watcher kept up" {
					return false
				}
				seen = seen || !c.Passed
			}
		}
	}
	return seen
}

// cpuV1 is where the cgroup v1 cpu hierarchy is mounted, "" where it is
// not: where a bandwidth limit's cgroup is made.
func cpuV1() string {
	h, err := cgroupfs.Find(fsroot.Host)
	if err != nil {
		return ""
	}
	m, _ := h.V1("cpu")
	return m.Dir
}
