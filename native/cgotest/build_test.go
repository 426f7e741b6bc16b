//go:build linux && cgo

package cgotest

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
	"sync"
	"testing"

	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/internal/page"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// nativeDir is native/, the library's sources.
func nativeDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func sources(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(nativeDir(t), "src", "*.c"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no C sources: %v", err)
	}
	return files
}

// TestCompilers builds every source with -Wall -Wextra -Werror under each
// compiler found (GCC and Clang), and the example with the C++ wrapper as
// C++17 with -pedantic. The aarch64 cross-build is CI's (.ci/run).
func TestCompilers(t *testing.T) {
	found := 0
	for _, cc := range []struct{ c, cxx string }{{"gcc", "g++"}, {"clang", "clang++"}} {
		if _, err := exec.LookPath(cc.c); err != nil {
			t.Logf("%s not found; not built with it", cc.c)
			continue
		}
		found++
		t.Run(cc.c, func(t *testing.T) {
			t.Parallel()
			inc := "-I" + filepath.Join(nativeDir(t), "include")
			args := append([]string{"-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", inc}, sources(t)...)
			if out, err := exec.Command(cc.c, args...).CombinedOutput(); err != nil {
				t.Errorf("%s %s: %v\n%s", cc.c, strings.Join(args, " "), err, out)
			}
			if _, err := exec.LookPath(cc.cxx); err != nil || cc.cxx == "g++" {
				return // g++ builds the example for the sanitized runs
			}
			for _, f := range []string{filepath.Join(nativeDir(t), "examples", "bench_module.cpp")} {
				args := []string{"-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", inc, f}
				if out, err := exec.Command(cc.cxx, args...).CombinedOutput(); err != nil {
					t.Errorf("%s %s: %v\n%s", cc.cxx, strings.Join(args, " "), err, out)
				}
			}
		})
	}
	if found == 0 {
		t.Skip("no C compiler found by name (gcc, clang)")
	}
}

var built struct {
	done chan struct{}
	dir  string
	exe  string
	// threadSession is testdata/thread_session.cpp, built as the example is.
	threadSession string
	err           error
}

// startBuild builds the example with -fsanitize=address,undefined in the
// background while the other tests run; example waits for it.
func startBuild() {
	built.done = make(chan struct{})
	go func() {
		defer close(built.done)
		built.exe, built.err = buildExample()
	}()
}

func cleanupBuilds() {
	if built.done != nil {
		<-built.done
	}
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

func buildExample() (string, error) {
	cc, cxx := os.Getenv("CC"), os.Getenv("CXX")
	if cc == "" {
		cc = "cc"
	}
	if cxx == "" {
		cxx = "c++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		return "", fmt.Errorf("no C++ compiler (%s)", cxx)
	}
	native, err := filepath.Abs("..")
	if err != nil {
		return "", err
	}
	srcs, err := filepath.Glob(filepath.Join(native, "src", "*.c"))
	if err != nil || len(srcs) == 0 {
		return "", fmt.Errorf("no C sources in %s", native)
	}
	dir, err := os.MkdirTemp("", "corepin-native-")
	if err != nil {
		return "", err
	}
	os.Chmod(dir, 0o755)
	built.dir = dir
	san := []string{"-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all", "-O0"}
	inc := "-I" + filepath.Join(native, "include")
	objs := make([]string, len(srcs))
	errs := make([]error, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		objs[i] = filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), ".c")+".o")
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append([]string{"-std=c11", "-Wall", "-Wextra", "-Werror", inc, "-c", src, "-o", objs[i]}, san...)
			if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return "", err
		}
	}
	link := func(src, exe string) error {
		args := append([]string{"-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic", inc, src, "-o", exe}, san...)
		args = append(append(args, objs...), "-lpthread", "-ldl", "-lm")
		if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %v\n%s", cxx, strings.Join(args, " "), err, out)
		}
		return nil
	}
	exe := filepath.Join(dir, "bench_module")
	if err := link(filepath.Join(native, "examples", "bench_module.cpp"), exe); err != nil {
		return "", err
	}
	ts, err := filepath.Abs(filepath.Join("testdata", "thread_session.cpp"))
	if err != nil {
		return "", err
	}
	built.threadSession = filepath.Join(dir, "thread_session")
	if err := link(ts, built.threadSession); err != nil {
		return "", err
	}
	return exe, nil
}

// example returns the sanitized example.
func example(t *testing.T) string {
	t.Helper()
	<-built.done
	if built.err != nil {
		if strings.HasPrefix(built.err.Error(), "no C++ compiler") {
			t.Skip(built.err)
		}
		t.Fatal(built.err)
	}
	return built.exe
}

// goLadder is the Go session's report for the example's request: the
// geekbench ladder without realtime, rule exact.
func goLadder(t *testing.T, cpu int, asNobody bool) map[string]any {
	t.Helper()
	_, g := runHelper(t, "geekbench", cpu, asNobody)
	return g
}

func loadRun(t *testing.T, dir string) (*results.Run, map[string]any) {
	t.Helper()
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	b := raw["benchmarks"].([]any)[0].(map[string]any)
	sched := b["runs"].([]any)[0].(map[string]any)["scheduling"].(map[string]any)
	return run, sched
}

// sameLadder compares the ladder steps of two reports: what each asked, its
// errno, whether it held.
func sameLadder(t *testing.T, c, g map[string]any) {
	t.Helper()
	cs, gs := steps(c), steps(g)
	if len(cs) != len(gs) {
		t.Fatalf("the example tried %d steps, the Go session %d", len(cs), len(gs))
	}
	for i := range cs {
		a, b := cs[i].(map[string]any), gs[i].(map[string]any)
		for _, k := range []string{"asked", "errno", "accepted", "skipped"} {
			if a[k] != b[k] {
				t.Errorf("step %d %s: example %v, Go session %v", i+1, k, a[k], b[k])
			}
		}
	}
	if c["ladder"].(map[string]any)["accepted_step"] != g["ladder"].(map[string]any)["accepted_step"] {
		t.Errorf("accepted step: example %v, Go session %v", c["ladder"], g["ladder"])
	}
}

// TestExampleAsRoot runs the example as an app would: its worker is pinned
// to the target (witnessed by taskset -p and /proc while it holds), the
// ladder settles as the Go session's, the restore holds, the maintenance
// thread puts the widened worker back, and corepin reads the folder.
func TestExampleAsRoot(t *testing.T) {
	requireRoot(t)
	cpu := requireTwoCPUs(t)
	exe := example(t)
	out := t.TempDir()
	cmd := exec.Command(exe, "--out", out, "--runs", "2", "--work", "31", "--widen")
	cmd.Env = append(os.Environ(), "COREPIN_EXAMPLE_HOLD=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var folder string
	for lines.Scan() {
		line := lines.Text()
		if tid, ok := strings.CutPrefix(line, "ready "); ok {
			witness(t, cmd.Process.Pid, tid, cpu)
			fmt.Fprintln(stdin)
		}
		if f, ok := strings.CutPrefix(line, "results "); ok {
			folder = f
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("example: %v\n%s", err, stderr.String())
	}
	if folder == "" {
		t.Fatalf("the example named no results folder\n%s", stderr.String())
	}
	run, rep := loadRun(t, folder)
	sameLadder(t, rep, goLadder(t, cpu, false))
	if rs := rep["restore"].(map[string]any); rs["ok"] != true {
		t.Errorf("restore: %v", rs)
	}
	for i, r := range run.Benchmarks[0].Runs {
		// Between widening its mask and being pulled back the worker may
		// be seen off the target, once or, on a loaded machine, twice
		// (one of 6 running samples beside go test's other packages);
		// never for the rest of its run, and most of its samples are on it.
		w := r.Scheduling.Watch
		if w == nil || len(w.Threads) != 1 || w.Reasserts < 1 || off(w.Threads[0]) > 2 || w.Threads[0].OnTarget <= off(w.Threads[0]) {
			t.Errorf("run %d: the widened worker was not kept on target: %+v", i, w)
		}
		if !r.Valid || r.Telemetry.Samples == 0 {
			t.Errorf("run %d: valid %v, telemetry %+v", i, r.Valid, r.Telemetry)
		}
	}
	var html bytes.Buffer
	if err := page.Write(&html, run, folder); err != nil {
		t.Fatalf("corepin report: %v", err)
	}
	if !strings.Contains(html.String(), "fib") {
		t.Error("the report page does not show the benchmark")
	}
	if cmp := results.Compare(run, run); len(cmp.Deltas) != 1 || cmp.Deltas[0].Change == nil || *cmp.Deltas[0].Change != 0 {
		t.Errorf("corepin compare of the folder with itself: %+v", cmp)
	}
}

// witness checks the worker's mask with taskset -p and /proc, from
// outside the process.
func witness(t *testing.T, pid int, tid string, cpu int) {
	t.Helper()
	out, err := exec.Command("taskset", "-p", tid).Output()
	if err != nil {
		t.Errorf("taskset -p %s: %v", tid, err)
		return
	}
	f := strings.Fields(string(out))
	if mask, err := strconv.ParseUint(f[len(f)-1], 16, 64); err != nil || mask != 1<<uint(cpu) {
		t.Errorf("taskset -p %s: %q, want mask %x", tid, out, 1<<uint(cpu))
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, tid))
	if err != nil || !strings.Contains(string(status), fmt.Sprintf("Cpus_allowed_list:\t%d\n", cpu)) {
		t.Errorf("/proc/%d/task/%s/status does not allow only CPU %d: %v\n%s", pid, tid, cpu, err, status)
	}
}

// TestExampleAsNobody: as nobody, the example's ladder fails on the same
// steps with the same errnos as the Go session's, and it still restores.
func TestExampleAsNobody(t *testing.T) {
	cpu, _ := target(t)
	exe := example(t)
	dir := nobody.Dir(t)
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bench_module")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := nobody.Command(t, bin, "--out", filepath.Join(dir, "results"), "--runs", "1", "--work", "25", "--cpu", strconv.Itoa(cpu))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("example as nobody: %v\n%s", err, out)
	}
	folders, _ := filepath.Glob(filepath.Join(dir, "results", "*"))
	if len(folders) != 1 {
		t.Fatalf("results folders %v\n%s", folders, out)
	}
	_, rep := loadRun(t, folders[0])
	g := goLadder(t, cpu, true)
	sameLadder(t, rep, g)
	if last := steps(rep)[len(steps(rep))-1].(map[string]any); last["errno"] != "EPERM" {
		t.Errorf("nice -20 as nobody: %v, want EPERM", last)
	}
	if rs := rep["restore"].(map[string]any); rs["ok"] != true {
		t.Errorf("restore as nobody: %v", rs)
	}
}

// off is how many of a thread's running samples found it off the target.
func off(th evidence.ThreadStat) int { return th.Running - th.OnTarget }
