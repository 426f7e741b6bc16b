package results

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The guard of a killed corepin records what it ended in the run that
// corepin was writing, and that run is settled as crashed; a run another
// corepin writes is not touched.
func TestRecordGuardedSettlesTheKilledRun(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, pid int) {
		r, err := Load(filepath.Join("testdata", "merge", "cpu0"))
		if err != nil {
			t.Fatal(err)
		}
		host, _ := os.Hostname()
		r.State, r.Writer = StateRunning, &Writer{Host: host, PID: pid, StartTicks: 4242}
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := (&Folder{Path: filepath.Join(dir, name)}).SaveRun(r); err != nil {
			t.Fatal(err)
		}
	}
	write("killed", dead.Process.Pid)
	write("other", dead.Process.Pid+1<<22) // no such PID: pid_max is at most 2^22
	const msg = "corepin was killed: its guard ended 2 processes of the run"
	if err := RecordGuarded(dir, dead.Process.Pid, 4242, time.Now().Add(-time.Minute), msg); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"killed": true, "other": false} {
		r, err := Load(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(WarningTexts(r.Warnings), msg); got != want {
			t.Errorf("%s: the guard's words in its warnings %v, want %v: %q", name, got, want, r.Warnings)
		}
		if r.State != StateCrashed {
			t.Errorf("%s: state %q, want %q (its writer is gone)", name, r.State, StateCrashed)
		}
	}
}
