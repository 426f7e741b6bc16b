//go:build linux && cgo

package cgotest

import (
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
)

// threadState is what a session changes on a thread, read back by TID.
type threadState struct {
	mask cpuset.Set
	attr sched.Attr
}

func (a threadState) same(b threadState) bool { return a.mask.Equal(b.mask) && a.attr == b.attr }

func stateOf(t *testing.T, tid int) threadState {
	t.Helper()
	mask, err := sched.GetAffinity(tid)
	if err != nil {
		t.Fatal(err)
	}
	attr, err := sched.GetAttr(tid)
	if err != nil {
		t.Fatal(err)
	}
	attr.Runtime = 0 // the EEVDF slice is the kernel's, not the session's
	return threadState{mask, attr}
}

// onOtherThread runs f on a locked goroutine, a thread other than the
// caller's locked one.
func onOtherThread(f func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(done)
		f()
	}()
	<-done
}

// A finish from a thread that does not own the session is refused with
// WRONG_THREAD and changes nothing: the owner keeps what the session set,
// the process is not tainted, and the owner's own finish then restores.
func TestFinishFromAnotherThreadIsRefused(t *testing.T) {
	requireRoot(t)
	cpu, _ := target(t)
	onLockedThread(func() {
		tid := sched.Gettid()
		before := stateOf(t, tid)
		s, rc, msg := beginRC(cpu)
		if rc != rcOK {
			t.Fatalf("begin at CPU %d: %d: %s", cpu, rc, msg)
		}
		defer s.free()
		during := stateOf(t, tid)
		if during.mask.String() != cpuset.Of(cpu).String() {
			t.Fatalf("the session's mask reads back as %s, want %d", during.mask, cpu)
		}
		var wrong int
		onOtherThread(func() { wrong = s.finishRC() })
		if wrong != rcWrongThread {
			t.Errorf("finish from another thread = %d, want COREPIN_ERR_WRONG_THREAD (%d)", wrong, rcWrongThread)
		}
		if tainted() {
			t.Errorf("a refused finish tainted the process")
			clearTaint()
		}
		if got := stateOf(t, tid); !got.same(during) {
			t.Errorf("the refused finish changed the owner: %+v, the session had set %+v", got, during)
		}
		if rc := s.finishRC(); rc != rcOK {
			t.Fatalf("the owner's finish after the refusal = %d, want OK", rc)
		}
		if got := stateOf(t, tid); !got.same(before) {
			t.Errorf("after the owner's finish the thread is %+v, was %+v", got, before)
		}
	})
}

// A second session on a thread that has one is refused before any change;
// once the first is finished, a new one may begin.
func TestNestedSessionIsRefused(t *testing.T) {
	requireRoot(t)
	cpu, _ := target(t)
	onLockedThread(func() {
		tid := sched.Gettid()
		first, rc, msg := beginRC(cpu)
		if rc != rcOK {
			t.Fatalf("begin: %d: %s", rc, msg)
		}
		defer first.free()
		during := stateOf(t, tid)
		second, rc, msg := beginRC(cpu)
		if rc != rcNested {
			if second != nil {
				second.finishRC()
				second.free()
			}
			t.Fatalf("a second begin on the thread = %d (%s), want COREPIN_ERR_NESTED (%d)", rc, msg, rcNested)
		}
		if !strings.Contains(msg, "already has an unfinished session") {
			t.Errorf("the refusal says %q", msg)
		}
		if got := stateOf(t, tid); !got.same(during) {
			t.Errorf("the refused begin changed the thread: %+v, was %+v", got, during)
		}
		if rc := first.finishRC(); rc != rcOK {
			t.Fatalf("finish = %d", rc)
		}
		again, rc, msg := beginRC(cpu)
		if rc != rcOK {
			t.Fatalf("a begin after the first finished = %d: %s", rc, msg)
		}
		again.finishRC()
		again.free()
	})
}

// A CPU that is not online, and one outside the thread's allowed CPUs,
// are refused before any change, with a message that says which.
func TestTargetTheThreadCannotHaveIsRefused(t *testing.T) {
	_, usable := target(t)
	last := usable.CPUs()[len(usable.CPUs())-1]
	onLockedThread(func() {
		tid := sched.Gettid()
		before := stateOf(t, tid)
		for _, cpu := range []int{last + 1, 63, 4095} {
			if usable.Contains(cpu) {
				continue
			}
			s, rc, msg := beginRC(cpu)
			if s != nil {
				s.finishRC()
				s.free()
			}
			if rc != rcInvalid || msg == "" {
				t.Errorf("CPU %d: begin = %d %q, want COREPIN_ERR_INVALID with a message", cpu, rc, msg)
			}
			if got := stateOf(t, tid); !got.same(before) {
				t.Errorf("CPU %d: the refused begin changed the thread: %+v, was %+v", cpu, got, before)
			}
		}
		if usable.Len() < 2 {
			t.Logf("one usable CPU (%s): the outside-the-mask case needs two", usable)
			return
		}
		// The thread inherits a narrow mask, as under taskset: the other
		// usable CPU is outside it.
		in, out := usable.CPUs()[0], usable.CPUs()[1]
		if err := sched.SetAffinity(tid, cpuset.Of(in)); err != nil {
			t.Fatal(err)
		}
		defer sched.SetAffinity(tid, before.mask)
		narrowed := stateOf(t, tid)
		s, rc, msg := beginRC(out)
		if s != nil {
			s.finishRC()
			s.free()
		}
		if rc != rcInvalid || !strings.Contains(msg, "outside the CPUs this thread may use") {
			t.Errorf("CPU %d outside the mask %d: begin = %d %q, want COREPIN_ERR_INVALID naming the mask", out, in, rc, msg)
		}
		if got := stateOf(t, tid); !got.same(narrowed) {
			t.Errorf("the refused begin widened the thread: %+v, was %+v", got, narrowed)
		}
	})
	if tainted() {
		t.Errorf("a refused begin tainted the process")
		clearTaint()
	}
}

// Every entry point refuses a NULL where it needs a pointer instead of
// crashing.
func TestNullArgumentsAreRefused(t *testing.T) {
	if n, which := nullCalls(); n != 0 {
		t.Errorf("%d entry points did not refuse a NULL as documented: %s", n, which)
	}
}

// A time that is not finite, or JSON that is not one value, is refused at
// add, so the saved run.json always reads; the runs are of kind native,
// named for the app.
func TestResultsRefuseWhatWouldMakeRunJSONUnreadable(t *testing.T) {
	cpu, _ := target(t)
	base := t.TempDir()
	r := createResults(base, cpu)
	if r == nil {
		t.Fatal("corepin_results_create failed")
	}
	defer r.close()
	if rc := r.setApp("misuse-app"); rc != rcOK {
		t.Fatalf("set_app = %d", rc)
	}
	for _, c := range []struct {
		what               string
		wall               float64
		sched, watch, tele string
	}{
		{"NaN time", math.NaN(), "", "", ""},
		{"+Inf time", math.Inf(1), "", "", ""},
		{"negative time", -1, "", "", ""},
		{"a time of 0", 0, "", "", ""},
		{"a finite time whose spread overflows", 1e300, "", "", ""},
		{"a time finer than any clock", 1e-300, "", "", ""},
		{"a number no double holds in the telemetry", 1, "", "", `{"samples":1,"freq_min_mhz":1e999}`},
		{"a number no double holds in the watch", 1, "", `{"samples":1e999}`, ""},
		{"samples that are not an int", 1, "", "", `{"samples":1.5}`},
		{"a freq_source that is not a string", 1, "", "", `{"samples":1,"freq_source":3}`},
		{"notes that are not strings", 1, "", "", `{"samples":1,"notes":[1]}`},
		{"telemetry that is not an object", 1, "", "", `[1]`},
		{"unclosed report", 1, `{"tid":1`, "", ""},
		{"report not an object", 1, `[1]`, "", ""},
		{"NaN in the watch", 1, "", `{"samples":NaN}`, ""},
		{"text after the telemetry", 1, "", "", `{"samples":0} x`},
		{"raw control byte in a string", 1, "", "", "{\"a\":\"\x01\"}"},
	} {
		if rc := r.addRun(c.wall, c.sched, c.watch, c.tele); rc != rcInvalid {
			t.Errorf("%s: add = %d, want COREPIN_ERR_INVALID", c.what, rc)
		}
	}
	for _, name := range []string{"", "two\nlines", "an \x1b[31mescape", "not \xff UTF-8", "a C1 \u009b control", "a bidi \u202e override", "tab\there"} {
		if rc := r.addNamedRun(name, 1, "", "", ""); rc != rcInvalid {
			t.Errorf("the name %q: add = %d, want COREPIN_ERR_INVALID", name, rc)
		}
	}
	if rc := r.addRun(0.5, `{"tid":1,"nested":[1,2.5e-3,"\u00e9",true,null]}`, "", `{"samples":0,"freq_min_mhz":null,"notes":["gap"],"other":{"x":1.5}}`); rc != rcOK {
		t.Fatalf("a valid run: add = %d", rc)
	}
	// A name that a CSV field quotes, and one of another script.
	odd := []string{`fib, "quoted" `, " Grüße 東京"}
	for _, name := range odd {
		if rc := r.addNamedRun(name, 0.25, "", "", ""); rc != rcOK {
			t.Fatalf("the name %q: add = %d", name, rc)
		}
	}
	if rc := r.save(); rc != 0 {
		t.Fatalf("save = %d", rc)
	}
	data, err := os.ReadFile(filepath.Join(r.path(), "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range data {
		if c >= 0x7f || (c < 0x20 && c != '\n') {
			t.Fatalf("run.json holds the byte %#x, not ASCII text", c)
		}
	}
	run, err := results.Load(r.path()) // as corepin report reads it
	if err != nil {
		t.Fatalf("run.json does not read: %v\n%s", err, data)
	}
	if len(run.Benchmarks) != 3 || len(run.Benchmarks[0].Runs) != 1 {
		t.Fatalf("run.json holds %d benchmarks, want 3 with 1 run each (the refused adds kept nothing)", len(run.Benchmarks))
	}
	if b := run.Benchmarks[0]; b.Kind != "native" || run.Options.App != "misuse-app" {
		t.Errorf("kind %q, app %q; want native and misuse-app", b.Kind, run.Options.App)
	}
	for i, name := range odd {
		if got := run.Benchmarks[i+1].Name; got != name {
			t.Errorf("run.json names %q, was %q", got, name)
		}
	}
	// summary.csv: a header and one row a benchmark, each name as given.
	f, err := os.Open(filepath.Join(r.path(), "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 4 || rows[2][0] != odd[0] || rows[3][0] != odd[1] {
		t.Errorf("summary.csv: %v, rows %q", err, rows)
	}
	// bench.txt: one result a run, each name one field, as results.BenchName makes it.
	bench, err := os.ReadFile(filepath.Join(r.path(), "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for line := range strings.Lines(string(bench)) {
		if f := strings.Fields(line); len(f) == 4 && f[3] == "ns/op" {
			names = append(names, f[0])
		}
	}
	if want := []string{"BenchmarkFib", results.BenchName(odd[0]), results.BenchName(odd[1])}; !slices.Equal(names, want) {
		t.Errorf("bench.txt names %q, want %q:\n%s", names, want, bench)
	}
}

func TestVersion(t *testing.T) {
	built, header := libraryVersion()
	if built == "" || built != header {
		t.Errorf("corepin_version() = %q, COREPIN_VERSION %q", built, header)
	}
}

// The shared library exports corepin_* alone: its internal cp_* helpers
// are hidden, so they cannot clash with an app's own symbols.
func TestSharedLibraryExportsOnlyTheAPI(t *testing.T) {
	for _, tool := range []string{"make", "cc", "nm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	build := t.TempDir()
	// What is exported does not depend on the optimisation: -O0 builds it
	// in 2.8 s where -O2 -g took 7.2 s.
	if out, err := exec.Command("make", "-s", "-C", nativeDir(t), "BUILD="+build, "CFLAGS=-O0", build+"/libcorepin_session.so").CombinedOutput(); err != nil {
		t.Fatalf("make: %v\n%s", err, out)
	}
	out, err := exec.Command("nm", "-D", "--defined-only", filepath.Join(build, "libcorepin_session.so")).Output()
	if err != nil {
		t.Fatalf("nm: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		name := f[len(f)-1]
		if !strings.HasPrefix(name, "corepin_") {
			t.Errorf("exported: %s", line)
		}
		n++
	}
	if n < 20 {
		t.Errorf("only %d symbols exported:\n%s", n, out)
	}
}
