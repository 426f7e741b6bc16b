package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/sched"
)

// What is asked for by name and cannot be given as asked is refused with
// 125 and the reason, not run silently; --accept any runs it anyway.
func TestExplicitAsksThatCannotHoldAreRefused(t *testing.T) {
	requireExec(t)
	cases := [][]string{{"--target", "little"}}
	// Two CPUs this test may use, from what corepin reads (not 0-1: the
	// machine may have a hole there).
	if usable := testcpu.Usable(t).CPUs(); len(usable) >= 2 {
		cases = append(cases, []string{"--cpus", cpuset.Of(usable[0], usable[1]).String()})
	}
	if !sched.Uclamp().Supported {
		cases = append(cases, []string{"--uclamp", "1024:1024"})
	}
	for _, c := range cases {
		_, errOut, code := corepin(t, append(append([]string{"exec", "-q"}, c...), "--", "true")...)
		if c[0] == "--target" && !strings.Contains(errOut, "slower") && code == 0 {
			continue // a machine with little cores runs there
		}
		if code != exitRefused || errOut == "" {
			t.Errorf("%v: exit %d (%q), want %d with the reason", c, code, errOut, exitRefused)
		}
		if _, errOut, code := corepin(t, append(append([]string{"exec", "-q", "--accept", "any"}, c...), "--", "true")...); code != 0 {
			t.Errorf("%v --accept any: exit %d (%s)", c, code, errOut)
		}
	}
}

// nice10Helper puts its own busy thread at nice 10, as a program that
// lowers a helper thread's priority would, and spins for half a second.
func nice10Helper() {
	runtime.LockOSThread()
	sched.SetNice(0, 10)
	for start := time.Now(); time.Since(start) < 500*time.Millisecond; {
	}
	os.Exit(0)
}

// With --observe the watcher measures but keeps the program's own choice
// of nice 10; without it, it puts the ladder's nice back.
func TestExecObserveKeepsTheProgramsChoices(t *testing.T) {
	cpu := requireExec(t)
	if f := sched.NiceLowering(); !f.Supported {
		t.Skipf("asks for nice -5, which this user may not have: %s", f.Evidence)
	}
	exe, _ := os.Executable()
	t.Setenv("COREPIN_EXEC_HELPER", "nice10")
	for _, observe := range []bool{true, false} {
		report := filepath.Join(t.TempDir(), "r.json")
		args := []string{"exec", "-q", "--cpu", fmt.Sprint(cpu), "--nice", "-5", "--watch", "20ms", "--report", report}
		if observe {
			args = append(args, "--observe")
		}
		if _, errOut, code := corepin(t, append(args, "--", exe)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		w := readReport(t, report).Watch
		if w == nil || w.Samples < 2 {
			t.Fatalf("observe %v: watch %+v", observe, w)
		}
		if observe != (w.Reasserts == 0) {
			t.Errorf("observe %v: %d re-assertions", observe, w.Reasserts)
		}
	}
}

// An unwritable --report is found before the command runs.
func TestExecReportPathCheckedFirst(t *testing.T) {
	requireExec(t)
	marker := filepath.Join(t.TempDir(), "ran")
	_, errOut, code := corepin(t, "exec", "-q", "--report", filepath.Join(t.TempDir(), "no", "such", "r.json"), "--", "touch", marker)
	if _, err := os.Stat(marker); err == nil || code != 2 || !strings.Contains(errOut, "--report") {
		t.Errorf("exit %d (%q); the command ran: %v", code, errOut, err == nil)
	}
}

// A suite file that cannot be read is a command-line error (2); one whose
// content is wrong is the job's failure (1).
func TestSuiteFileExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[[benchmark]]\nname = \"x\"\nnope = 1\n"), 0o644)
	if _, errOut, code := corepin(t, "run", "-q", filepath.Join(dir, "missing.toml")); code != 2 {
		t.Errorf("a missing suite file: exit %d (%s), want 2", code, errOut)
	}
	if _, errOut, code := corepin(t, "run", "-q", bad); code != 1 || !strings.Contains(errOut, "nope") {
		t.Errorf("a suite file with an unknown key: exit %d (%s), want 1", code, errOut)
	}
}
