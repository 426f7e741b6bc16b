//go:build linux && cgo

package cgotest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// reuseResult is what the reuse helper reports.
type reuseResult struct {
	Result         json.RawMessage `json:"result"`
	OldTID, NewTID int
	Before, After  string
	Err            string
}

// reuseHelper runs in a pid and mount namespace of its own (started by
// TestRealTIDReuse): it mounts that namespace's /proc, so that its TIDs and
// ns_last_pid are the namespace's, and has the kernel give a registered,
// ended worker's TID to a new thread.
func reuseHelper() {
	var res reuseResult
	defer func() { json.NewEncoder(os.Stdout).Encode(res) }()
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		res.Err = "making the mounts private: " + err.Error()
		return
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		res.Err = "mounting the namespace's /proc: " + err.Error()
		return
	}
	var cpu int
	fmt.Sscan(os.Getenv("COREPIN_NATIVE_CPU"), &cpu)
	for try := 0; try < 20; try++ {
		out, oldTID, newTID, before, after := runRealReuse(cpu)
		res.OldTID, res.NewTID, res.Before, res.After = oldTID, newTID, before.String(), after.String()
		if out != nil {
			res.Result = out
			return
		}
	}
	res.Err = fmt.Sprintf("the kernel never gave the ended worker's TID %d to a new thread (last: %d)", res.OldTID, res.NewTID)
}

// TestRealTIDReuse: the kernel gives a registered worker's TID, after the
// worker ended without leaving, to a new thread; the maintenance thread
// sees that the start time no longer matches and leaves the new thread
// alone.
func TestRealTIDReuse(t *testing.T) {
	requireRoot(t)
	cpu := requireTwoCPUs(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "COREPIN_NATIVE_HELPER=reuse", "COREPIN_NATIVE_CPU="+strconv.Itoa(cpu))
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWPID | unix.CLONE_NEWNS}
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("cannot run a helper in a new pid and mount namespace here: %v", err)
	}
	var res reuseResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("helper printed %q: %v", out, err)
	}
	if res.Err != "" {
		t.Fatal(res.Err)
	}
	if res.OldTID != res.NewTID {
		t.Fatalf("old TID %d, new %d", res.OldTID, res.NewTID)
	}
	_, th := watchThread(t, res.Result)
	if th["identity"] != "tid-reused" || th["reasserts"].(float64) != 0 {
		t.Errorf("TID %d reused by another thread: %v", res.NewTID, th)
	}
	if res.After != res.Before {
		t.Errorf("the new thread holding TID %d had its mask changed from %s to %s", res.NewTID, res.Before, res.After)
	}
	t.Logf("TID %d of an ended worker went to a new thread; the maintenance thread saw %v and left its mask at %s", res.NewTID, th["identity"], res.After)
}
