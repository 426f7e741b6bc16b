package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
)

// A user without CAP_SYS_NICE (nobody, from root; or the test's own user,
// as in the shell-user guest) is told once, up front, that the runs'
// priority could not be raised and why, and, where no cgroup may be made,
// what held each run's tree; every run still completes, its mechanism in
// its record.
func TestUnraisedPriorityIsSaidOnce(t *testing.T) {
	// The helper's runs need what config needs: a CPU left off the
	// target. Where there is none (taskset -c 1) the helper would skip and
	// say nothing, so this skips first, naming why.
	testcpu.Target(t)
	var out string
	if os.Geteuid() != 0 && sched.CapSysNiceFact(fsroot.Host) == "no CAP_SYS_NICE" {
		out = notesRun(t)
	} else {
		cmd := nobody.Command(t, nobody.Executable(t), "-test.run", "^TestNotesHelper$")
		cmd.Env = append(os.Environ(), "COREPIN_NOTES_HELPER=1")
		o, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("as nobody: %v\n%s", err, o)
		}
		out = string(o)
	}
	t.Log(out)
	if n := strings.Count(out, "note: the runs' priority could not be raised: no step of ladder geekbench held ("); n != 1 {
		t.Errorf("said %d times that the priority could not be raised, want once", n)
	}
	if !strings.Contains(out, "no CAP_SYS_NICE, RLIMIT_NICE=") {
		t.Errorf("the note does not say why")
	}
	tree := strings.Count(out, "note: each run's process tree is held by its process group and corepin's subreaping, not a cgroup (")
	groups := strings.Count(out, "run: "+launch.MechanismProcessGroup)
	if runs := strings.Count(out, "run: "); runs != 4 || (tree == 1) != (groups == runs) || tree > 1 {
		t.Errorf("%d runs, %d held by the process group, the process group said %d times: want 4 runs, each named, the process group said once where it held them all", runs, groups, tree)
	}
}

// TestNotesHelper runs two benchmarks of two runs each and prints each
// note and each run's mechanism, for TestUnraisedPriorityIsSaidOnce. It
// returns as a test does, so that its results folder (the helper's own
// user's) is removed with it; go test's PASS line after it is none of
// what the caller counts.
func TestNotesHelper(t *testing.T) {
	if os.Getenv("COREPIN_NOTES_HELPER") == "" {
		t.Skip("run by TestUnraisedPriorityIsSaidOnce")
	}
	fmt.Print(notesRun(t))
}

func notesRun(t *testing.T) string {
	t.Helper()
	cfg := config(t)
	cfg.Suite = loadSuite(t, "[[benchmark]]\nname = \"a\"\ncmd = \"true\"\n\n[[benchmark]]\nname = \"b\"\ncmd = \"true\"\n")
	ev := &notesEvents{}
	cfg.Events = ev
	if _, _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return ev.out.String()
}

// notesEvents records the notes and what held each run's tree.
type notesEvents struct {
	noEvents
	out strings.Builder
}

func (e *notesEvents) Note(s string) { e.out.WriteString("note: " + s + "\n") }

func (e *notesEvents) RunDone(_ string, rec *results.RunRecord) {
	m := "(none)"
	if rec.Error != "" {
		m = "error " + rec.Error
	} else if rec.Scheduling != nil && rec.Scheduling.Tree != nil {
		m = rec.Scheduling.Tree.Mechanism
	}
	e.out.WriteString("run: " + m + "\n")
}
