package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/spec"
	"corepin.dev/corepin/cmd/corepin/internal/spec/standin"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
)

// The two small benchmarks the tests build with the machine's C compiler
// and run through SPEC's stand-in: a recursive Fibonacci number read from
// its input, and a sum whose partial results go to its output, compared
// within a relative tolerance.
const (
	fibC = `#include <stdio.h>
static long long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) {
	int n;
	if (scanf("%d", &n) != 1) return 2;
	printf("fib(%d) = %lld\n", n, fib(n));
	return 0;
}
`
	sumC = `#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 0;
	double sum = 0;
	for (long i = 1; i <= n; i++) {
		sum += 1.0 / ((double)i * (double)i);
		if (i % (n / 4) == 0) printf("terms %ld sum %.15e\n", i, sum);
	}
	return 0;
}
`
	// Some 100 ms of CPU time each: long enough for corepin to judge
	// whether the target was shared (judge.MinWorkCPU), and for the few
	// milliseconds of a command's start, when others may run, to stay far
	// below a tenth of it; short enough for a test.
	fibN, sumTerms = 36, 40000000
	specRelTol     = 1e-9
)

// specTree is a SPEC tree under a new folder holding the two benchmarks,
// built with cc, their inputs, reference outputs (computed here, not by
// the programs) and reference times.
func specTree(t *testing.T) (top string, benchmarks []standin.Benchmark) {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("needs a C compiler (cc) to build the stand-in's benchmarks")
	}
	top = t.TempDir()
	fib := func(n int) int64 {
		a, b := int64(0), int64(1)
		for range n {
			a, b = b, a+b
		}
		return a
	}
	var sums strings.Builder
	sum := 0.0
	for i := int64(1); i <= sumTerms; i++ {
		sum += 1.0 / (float64(i) * float64(i))
		if i%(sumTerms/4) == 0 {
			fmt.Fprintf(&sums, "terms %d sum %.15e\n", i, sum)
		}
	}
	for _, b := range []struct {
		name, exe, source, input, output, expected string
		ref                                        int
		args                                       []string
	}{
		{"901.fib_r", "fib_r", fibC, fmt.Sprintf("%d\n", fibN), "fib.out", fmt.Sprintf("fib(%d) = %d\n", fibN, fib(fibN)), 200, nil},
		{"902.sum_r", "sum_r", sumC, "", "sum.out", sums.String(), 100, []string{fmt.Sprint(sumTerms)}},
	} {
		dir := filepath.Join(top, "benchspec", "CPU", b.name)
		data := filepath.Join(dir, "data", "refrate")
		for _, d := range []string{filepath.Join(dir, "exe"), filepath.Join(dir, "src"), filepath.Join(data, "input"), filepath.Join(data, "output")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		src := filepath.Join(dir, "src", b.exe+".c")
		os.WriteFile(src, []byte(b.source), 0o644)
		if out, err := exec.Command(cc, "-O1", "-o", filepath.Join(dir, "exe", b.exe), src).CombinedOutput(); err != nil {
			t.Fatalf("cc %s: %v\n%s", src, err, out)
		}
		os.WriteFile(filepath.Join(data, "output", b.output), []byte(b.expected), 0o644)
		os.WriteFile(filepath.Join(data, "reftime"), []byte(fmt.Sprintf("refrate ref %d\nrefspeed ref %d\n", b.ref, 2*b.ref)), 0o644)
		w := standin.Workload{Args: b.args, Output: b.output}
		if b.input != "" {
			w.Input = "fib.in"
			os.WriteFile(filepath.Join(data, "input", w.Input), []byte(b.input), 0o644)
		}
		benchmarks = append(benchmarks, standin.Benchmark{Name: b.name, Exe: b.exe, Workloads: []standin.Workload{w}, RelTol: specRelTol})
	}
	return top, benchmarks
}

// runcpu runs the stand-in with the plan and returns the raw file it
// wrote.
func runcpu(t *testing.T, plan *standin.Plan) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := plan.WritePlan(path); err != nil {
		t.Fatal(err)
	}
	out, err := standin.Command(exe, path).CombinedOutput()
	if err != nil {
		t.Fatalf("runcpu stand-in: %v\n%s", err, out)
	}
	if plan.Action == "setup" {
		return ""
	}
	m := regexp.MustCompile(`format: raw -> (\S+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("runcpu stand-in wrote no raw file:\n%s", out)
	}
	return string(m[1])
}

// fragment is corepin spec config's fragment for cpu, the one the tests
// run: the same as docs/spec.md's but for the machine's CPUs and the
// corepin it names, this test binary (TestSpecDocFragment).
func fragment(t *testing.T, cpu int) string {
	t.Helper()
	out, errOut, code := corepin(t, "spec", "config", "--cpu", fmt.Sprint(cpu))
	if code != 0 {
		t.Fatalf("spec config: exit %d: %s", code, errOut)
	}
	return out
}

// binds reads the fragment's bind line.
func binds(t *testing.T, frag string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*bind = (.*)$`).FindStringSubmatch(frag)
	if m == nil {
		t.Fatalf("no bind line in\n%s", frag)
	}
	return strings.Fields(m[1])
}

// SPEC CPU under corepin, as runcpu runs it: the stand-in runs two C
// benchmarks through corepin spec config's fragment, rate with two copies
// and speed, three iterations each; corepin import spec joins its raw
// files with corepin's reports. Every iteration carries its read-back on
// the CPU its copy was bound to; a realtime competitor pinned to the
// target during one iteration makes exactly that one invalid by
// evidence; an output SPEC's validation fails stays SPEC's VE; the mean
// recomputed is the stand-in's; and the reports' times agree with
// speccmds.out's.
func TestSpecUnderRuncpu(t *testing.T) {
	skipInShort(t)
	cpu := requireExec(t)
	skipUnlessPriorityCanBeRaised(t)
	testcpu.Alone(t) // corepin's tests that load the target wait meanwhile
	top, benchmarks := specTree(t)
	frag := fragment(t, cpu)
	config := filepath.Join(top, "config", "corepin.cfg")
	os.MkdirAll(filepath.Dir(config), 0o755)
	os.WriteFile(config, []byte("# the test's config\noutput_format = raw\n"+frag), 0o644)
	bind := binds(t, frag)
	if bind[0] != fmt.Sprint(cpu) {
		t.Fatalf("the fragment binds copy 0 to CPU %s, want the target %d", bind[0], cpu)
	}
	plan := func(mode string, copies int) *standin.Plan {
		return &standin.Plan{Top: top, Config: config, Action: "run", Runmode: mode, Copies: copies, Iterations: 3,
			Tune: "base", Size: "refrate", Label: "corepin", Name: "int" + mode, Benchmarks: benchmarks}
	}
	rate := plan("rate", 2)
	rate.Corrupt = &standin.Hook{Benchmark: "902.sum_r", Iteration: 2}
	speed := plan("speed", 1)
	competitor := sched.Realtime().Supported
	if competitor {
		speed.Compete = &standin.Hook{Benchmark: "901.fib_r", Iteration: 1, CPU: cpu}
	}
	runs, rsfs := map[string]*results.Run{}, map[string]string{}
	for _, p := range []*standin.Plan{rate, speed} {
		// The speed run is recorded by corepin telemetry from outside,
		// as a user would around runcpu.
		var tel []string
		var rec *telemetryRecording
		if p == speed {
			rec = recordTelemetry(t)
			tel = []string{"--telemetry", rec.path}
		}
		rsf := runcpu(t, p)
		rsfs[p.Runmode] = rsf
		rec.stop(t)
		out := t.TempDir()
		stdout, errOut, code := corepin(t, append([]string{"import", "spec", rsf, "--out", out}, tel...)...)
		if code != 0 {
			t.Fatalf("import spec %s: exit %d: %s", rsf, code, errOut)
		}
		t.Logf("%s: %s", p.Runmode, strings.TrimSpace(stdout))
		dirs, _ := filepath.Glob(filepath.Join(out, "*"))
		run, err := results.Load(dirs[0])
		if err != nil {
			t.Fatal(err)
		}
		runs[p.Runmode] = run
		if _, errOut, code := corepin(t, "report", dirs[0], "--out", filepath.Join(out, "report.html")); code != 0 {
			t.Errorf("report of the %s import: exit %d: %s", p.Runmode, code, errOut)
		}
		checkSpecRun(t, run, p, bind)
		checkSpecTimes(t, top, dirs[0], run)
	}
	checkAnotherRunsEvidence(t, rsfs["rate"], filepath.Join(top, "result", "corepin."+runs["speed"].Spec.Lognum))
	sr := runs["rate"].Spec
	sum := runs["rate"].Benchmarks[1].Runs[2]
	if sum.Valid || sum.Spec.Valid != "VE" || !strings.Contains(sum.Error, "SPEC: VE") {
		t.Errorf("the spoilt output: valid %v, SPEC's %q, error %q", sum.Valid, sum.Spec.Valid, sum.Error)
	}
	if sr.BaseMean == nil || sr.RecomputedBaseMean == nil || *sr.BaseMean != *sr.RecomputedBaseMean || sr.MeanNote != "" {
		t.Errorf("rate's mean: the stand-in's %v, recomputed %v (%q)", sr.BaseMean, sr.RecomputedBaseMean, sr.MeanNote)
	}
	t.Run("competitor", func(t *testing.T) {
		if !competitor {
			t.Skip("needs realtime scheduling (CAP_SYS_NICE or RLIMIT_RTPRIO) for the competitor")
		}
		// The speed run's commands, on the target with the other CPUs
		// free for corepin's own threads (in the rate run, which binds a
		// copy to every CPU, each copy's corepin runs its start, watcher
		// and end on the others' CPUs: another corepin is others too).
		// Only the competitor's iteration may be shared; where another
		// is, something else took the target then, and the machine cannot
		// tell the competitor's iteration from the rest.
		var others []string
		for _, run := range []*results.Run{runs["speed"]} {
			for _, b := range run.Benchmarks {
				for i, r := range b.Runs {
					want := b.Name == "901.fib_r.base" && i == 1
					flagged := ""
					for _, c := range r.Spec.Commands {
						if c.Copy == 0 && c.Invalid != "" {
							flagged = c.Invalid
						}
					}
					switch {
					case want && (flagged == "" || r.Valid || r.Spec.Valid != "S" || !strings.Contains(flagged, "the target CPU was shared")):
						t.Errorf("the competitor's iteration: valid %v, SPEC's %q, on the target %q", r.Valid, r.Spec.Valid, flagged)
					case !want && flagged != "":
						others = append(others, fmt.Sprintf("%s %s iteration %d: %s", run.Spec.Runmode, b.Name, i, flagged))
					}
				}
			}
		}
		if len(others) > 0 {
			t.Skipf("the competitor's iteration is flagged, but the target CPU %d was shared without it too, by other work (the machine is not quiet): %s", cpu, strings.Join(others, "; "))
		}
	})
}

// checkAnotherRunsEvidence imports a result with another run's folder
// of reports, as a person might give the wrong one: none is joined, every
// iteration's place is not recorded, and the import says why.
func checkAnotherRunsEvidence(t *testing.T, rsf, evidenceDir string) {
	t.Helper()
	out := t.TempDir()
	_, errOut, code := corepin(t, "import", "spec", rsf, "--evidence", evidenceDir, "--out", out)
	if code != 0 {
		t.Fatalf("import spec with another run's reports: exit %d: %s", code, errOut)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*"))
	run, err := results.Load(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range run.Benchmarks {
		for _, r := range b.Runs {
			if r.Spec.NotRecorded == "" || len(r.Spec.Commands) > 0 {
				t.Errorf("%s iteration %d joined another run's reports: %+v", b.Name, r.Spec.Iteration, r.Spec.Commands)
			}
		}
	}
	if run.Spec.Reports != 0 || run.Spec.EvidenceBaseMean != nil || !strings.Contains(errOut, "not this result's run "+run.Spec.Lognum) {
		t.Errorf("another run's reports: %d joined, evidence mean %v; said %s", run.Spec.Reports, run.Spec.EvidenceBaseMean, errOut)
	}
}

// checkSpecRun holds an imported run to its plan: every iteration,
// every copy's command with its report, read back on its copy's CPU.
func checkSpecRun(t *testing.T, run *results.Run, p *standin.Plan, bind []string) {
	t.Helper()
	if run.Kind() != results.KindSpec || len(run.Benchmarks) != len(p.Benchmarks) || run.Spec.Unjoined != nil {
		t.Fatalf("%s: kind %s, %d benchmarks, unjoined %q", p.Runmode, run.Kind(), len(run.Benchmarks), run.Spec.Unjoined)
	}
	for _, b := range run.Benchmarks {
		if len(b.Runs) != p.Iterations {
			t.Fatalf("%s %s: %d runs, want %d", p.Runmode, b.Name, len(b.Runs), p.Iterations)
		}
		for i, r := range b.Runs {
			sp := r.Spec
			if sp == nil || len(sp.Commands) != max(1, p.Copies) || sp.NotRecorded != "" {
				t.Fatalf("%s %s iteration %d: %+v", p.Runmode, b.Name, i, sp)
			}
			for _, c := range sp.Commands {
				want := bind[c.Copy%len(bind)]
				if c.CPU == nil || fmt.Sprint(*c.CPU) != want || c.CPUs.String() != want || !c.Accepted || c.AcceptedStep == 0 {
					t.Errorf("%s %s iteration %d copy %d: read back on %v (%s), accepted %v at step %d; bound to %s",
						p.Runmode, b.Name, i, c.Copy, c.CPU, c.CPUs, c.Accepted, c.AcceptedStep, want)
				}
			}
			if r.Scheduling == nil || sp.CorepinS == nil || sp.ReportedS == nil {
				t.Errorf("%s %s iteration %d: scheduling %v, corepin's time %v, SPEC's %v", p.Runmode, b.Name, i, r.Scheduling != nil, sp.CorepinS, sp.ReportedS)
			}
		}
	}
}

// checkSpecTimes compares every report's times with speccmds.out's
// lines of the same command: specinvoke's start is just before it forks
// the shell that starts corepin, its end just after that shell ended.
// corepin's own process lies inside them; the command inside corepin's.
func checkSpecTimes(t *testing.T, top, dir string, run *results.Run) {
	t.Helper()
	var startGaps, endGaps, setups, ends []time.Duration
	for _, b := range run.Benchmarks {
		for _, r := range b.Runs {
			name := fmt.Sprintf("%s.i%d.speccmds.out", b.Name, r.Spec.Iteration)
			data, err := os.ReadFile(filepath.Join(top, "result", "standin."+run.Spec.Lognum, name))
			if err != nil {
				t.Fatal(err)
			}
			tm, err := spec.ParseTimings(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range r.Spec.Commands {
				i := slices.IndexFunc(tm.Started, func(s spec.ChildStart) bool { return s.Copy == c.Copy })
				j := slices.IndexFunc(tm.Finished, func(e spec.ChildEnd) bool { return e.Copy == c.Copy })
				if i < 0 || j < 0 {
					t.Fatalf("%s: no lines of copy %d", name, c.Copy)
				}
				rep := readReport(t, filepath.Join(dir, c.Report))
				own, times := rep.Corepin, rep.Child.Times
				if own == nil || times == nil {
					t.Fatalf("%s copy %d: corepin %+v, times %+v", name, c.Copy, own, times)
				}
				started, finished := tm.Started[i].UnixNS, tm.Finished[j].UnixNS
				startGaps = append(startGaps, time.Duration(own.StartUnixNS-started))
				endGaps = append(endGaps, time.Duration(finished-own.EndUnixNS))
				setups = append(setups, time.Duration(times.StartUnixNS-own.StartUnixNS))
				ends = append(ends, time.Duration(own.EndUnixNS-times.EndUnixNS))
				// specinvoke's clock is gettimeofday's microseconds,
				// truncated; taskstats' start of corepin, microseconds too.
				const slack = 2 * time.Microsecond
				if time.Duration(own.StartUnixNS-started) < -slack || time.Duration(finished-own.EndUnixNS) < -slack ||
					times.StartUnixNS < own.StartUnixNS || times.EndUnixNS > own.EndUnixNS {
					t.Errorf("%s copy %d: specinvoke %d-%d, corepin %d-%d (%s), the command %d-%d: out of order",
						name, c.Copy, started, finished, own.StartUnixNS, own.EndUnixNS, own.StartSource, times.StartUnixNS, times.EndUnixNS)
				}
			}
		}
	}
	t.Logf("%s: speccmds.out's child started → corepin's start: %s; corepin's start → the command's: %s; the command's end → corepin's report: %s; the report → child finished: %s",
		run.Spec.Runmode, spread(startGaps), spread(setups), spread(ends), spread(endGaps))
}

// spread is a list of durations as "median (min–max) ms".
func spread(d []time.Duration) string {
	s := slices.Clone(d)
	slices.Sort(s)
	ms := func(v time.Duration) float64 { return float64(v) / 1e6 }
	return fmt.Sprintf("median %.2f ms (%.2f–%.2f, %d commands)", ms(s[len(s)/2]), ms(s[0]), ms(s[len(s)-1]), len(s))
}

// corepin spec suite on the stand-in's set-up run folders (set up with
// the fragment, whose submit lines it unwraps) gives a suite that corepin
// run runs with every check passing; a reference output changed beyond
// specdiff's tolerance fails its check, which names the tolerance.
func TestSpecSuiteRuns(t *testing.T) {
	skipInShort(t)
	cpu := requireExec(t)
	top, benchmarks := specTree(t)
	config := filepath.Join(top, "config", "corepin.cfg")
	os.MkdirAll(filepath.Dir(config), 0o755)
	os.WriteFile(config, []byte(fragment(t, cpu)), 0o644)
	runcpu(t, &standin.Plan{Top: top, Config: config, Action: "setup", Runmode: "rate", Copies: 1, Iterations: 1,
		Tune: "base", Size: "refrate", Label: "corepin", Name: "intrate", Benchmarks: benchmarks})
	var dirs []string
	for _, b := range benchmarks {
		dirs = append(dirs, filepath.Join(top, "benchspec", "CPU", b.Name, "run", "run_base_refrate_corepin.0000"))
	}
	suiteFile := filepath.Join(top, "corepin-suite.toml")
	if _, errOut, code := corepin(t, append([]string{"spec", "suite", "--out", suiteFile, "--runs", "1"}, dirs...)...); code != 0 {
		t.Fatalf("spec suite: exit %d: %s", code, errOut)
	}
	text, _ := os.ReadFile(suiteFile)
	if strings.Contains(string(text), top) || strings.Contains(string(text), "corepin exec") {
		t.Errorf("the suite names the tree by its absolute path or keeps corepin's submit:\n%s", text)
	}
	run := func(only ...string) *results.Run {
		t.Helper()
		out := t.TempDir()
		// Sharing is allowed: what is judged here is the output.
		args := []string{"run", suiteFile, "--cpu", fmt.Sprint(cpu), "--allow-sharing", "-q", "--out", out}
		if len(only) > 0 {
			args = append(args, "--only", strings.Join(only, ","))
		}
		_, errOut, code := corepin(t, args...)
		dirs, _ := filepath.Glob(filepath.Join(out, "*"))
		if len(dirs) != 1 {
			t.Fatalf("run: exit %d, no results: %s", code, errOut)
		}
		r, err := results.Load(dirs[0])
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := run()
	for _, b := range r.Benchmarks {
		if len(b.Runs) != 1 || len(b.Runs[0].Checks) == 0 || b.ReferenceS == 0 {
			t.Fatalf("%s: %d runs, reference %v: %+v", b.Name, len(b.Runs), b.ReferenceS, b.Runs)
		}
		for _, c := range b.Runs[0].Checks {
			if !c.Passed {
				t.Errorf("%s: check %q failed: %s (%s)", b.Name, c.What, c.Detail, b.Runs[0].Error)
			}
		}
	}
	// A reference output a thousandth off, beyond the tolerance of 1e-9.
	ref := filepath.Join(top, "benchspec", "CPU", "902.sum_r", "data", "refrate", "output", "sum.out")
	data, _ := os.ReadFile(ref)
	os.WriteFile(ref, []byte(strings.Replace(string(data), "sum 1.6449", "sum 1.6459", 1)), 0o644)
	r = run("902.sum_r.base")
	sum := r.Benchmarks[0].Runs[0]
	if sum.Valid || len(sum.Checks) == 0 || sum.Checks[0].Passed || !strings.Contains(sum.Checks[0].Detail, "beyond reltol 1e-09, abstol 0, obiwan") {
		t.Errorf("the changed reference: valid %v, checks %+v", sum.Valid, sum.Checks)
	}
	t.Logf("the changed reference: %s: %s", sum.Checks[0].What, sum.Checks[0].Detail)
}

// A start corepin refuses is SPEC's RE, with corepin's reason in
// speccmds.err, where runcpu finds it for its log; the import keeps the
// RE and says the iteration is invalid by evidence, with the reason.
func TestSpecRefusedStartIsRE(t *testing.T) {
	skipInShort(t)
	cpu := requireExec(t)
	top, benchmarks := specTree(t)
	// A rule no thread can meet: nice reads back -20 at the lowest.
	out, errOut, code := corepin(t, "spec", "config", "--cpu", fmt.Sprint(cpu), "--accept", "exact+nice<=-21")
	if code != 0 {
		t.Fatalf("spec config: exit %d: %s", code, errOut)
	}
	config := filepath.Join(top, "corepin.cfg")
	os.WriteFile(config, []byte(out), 0o644)
	rsf := runcpu(t, &standin.Plan{Top: top, Config: config, Action: "run", Runmode: "speed", Iterations: 1,
		Tune: "base", Size: "refrate", Label: "corepin", Name: "intspeed", Benchmarks: benchmarks[:1]})
	errs, _ := os.ReadFile(filepath.Join(top, "benchspec", "CPU", "901.fib_r", "run", "run_base_refrate_corepin.0000", "speccmds.err"))
	if !strings.Contains(string(errs), "not run: the scheduling was not accepted: requirement nice<=-21 not met") {
		t.Errorf("speccmds.err does not say why corepin refused:\n%s", errs)
	}
	res := t.TempDir()
	if _, errOut, code := corepin(t, "import", "spec", rsf, "--out", res); code != 0 {
		t.Fatalf("import spec: exit %d: %s", code, errOut)
	}
	dirs, _ := filepath.Glob(filepath.Join(res, "*"))
	run, err := results.Load(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	r := run.Benchmarks[0].Runs[0]
	if r.Valid || r.Spec.Valid != "RE" || len(r.Spec.InvalidByEvidence) != 1 || !strings.Contains(r.Spec.InvalidByEvidence[0], "corepin refused to start it: requirement nice<=-21 not met") ||
		len(r.Spec.Commands) != 1 || r.Spec.Commands[0].Refused == "" {
		t.Errorf("the refused iteration: valid %v, SPEC's %q, by evidence %q, commands %+v", r.Valid, r.Spec.Valid, r.Spec.InvalidByEvidence, r.Spec.Commands)
	}
}

// With the SPEC tree read-only (runcpu writing under its output_root), the
// reports go elsewhere (spec config --reports), and import spec finds
// them without --evidence, through the commands speccmds.out records in
// the run folders beside the result.
func TestSpecReportsElsewhere(t *testing.T) {
	skipInShort(t)
	cpu := requireExec(t)
	top, benchmarks := specTree(t)
	elsewhere := t.TempDir()
	out, errOut, code := corepin(t, "spec", "config", "--cpu", fmt.Sprint(cpu), "--reports", elsewhere)
	if code != 0 {
		t.Fatalf("spec config: exit %d: %s", code, errOut)
	}
	config := filepath.Join(top, "corepin.cfg")
	os.WriteFile(config, []byte(out), 0o644)
	rsf := runcpu(t, &standin.Plan{Top: top, Config: config, Action: "run", Runmode: "speed", Iterations: 1,
		Tune: "base", Size: "refrate", Label: "corepin", Name: "intspeed", Benchmarks: benchmarks[:1]})
	if _, err := os.Stat(filepath.Join(top, "result", "corepin.001")); err == nil {
		t.Errorf("the reports went into the SPEC tree")
	}
	res := t.TempDir()
	if _, errOut, code := corepin(t, "import", "spec", rsf, "--out", res); code != 0 {
		t.Fatalf("import spec: exit %d: %s", code, errOut)
	}
	dirs, _ := filepath.Glob(filepath.Join(res, "*"))
	run, err := results.Load(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if sr := run.Spec; sr.Evidence != filepath.Join(elsewhere, "corepin.001") || sr.Reports != 1 || run.Benchmarks[0].Runs[0].Spec.NotRecorded != "" {
		t.Errorf("evidence %q, %d joined, not recorded %q", sr.Evidence, sr.Reports, run.Benchmarks[0].Runs[0].Spec.NotRecorded)
	}
}

// telemetryRecording is corepin telemetry running around a whole runcpu.
type telemetryRecording struct {
	cmd  *exec.Cmd
	path string
}

// recordTelemetry starts corepin telemetry, as JSON every 50 ms, and
// returns once it records.
func recordTelemetry(t *testing.T) *telemetryRecording {
	t.Helper()
	exe, _ := os.Executable()
	r := &telemetryRecording{path: filepath.Join(t.TempDir(), "run-telemetry.json")}
	r.cmd = cliCommand(t, exe, "telemetry", "--interval", "50ms", "--format", "json", "--out", r.path)
	stderr, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil || !strings.Contains(line, "recording every") {
		t.Fatalf("corepin telemetry said %q, %v", line, err)
	}
	return r
}

// stop ends the recording as Ctrl-C does: the samples are written.
func (r *telemetryRecording) stop(t *testing.T) {
	t.Helper()
	if r == nil {
		return
	}
	r.cmd.Process.Signal(os.Interrupt)
	r.cmd.Wait()
	if _, err := os.Stat(r.path); err != nil {
		t.Fatalf("corepin telemetry wrote nothing: %v", err)
	}
}
