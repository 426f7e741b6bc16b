package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

func TestWatchObservesThenMaintains(t *testing.T) {
	cpu := requireExec(t)
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer busy.Wait()
	defer busy.Process.Kill()
	pid := busy.Process.Pid
	before, _ := sched.GetAffinity(pid)

	out, errOut, code := corepin(t, "watch", "--duration", "500ms", "--json", fmt.Sprint(pid))
	if code != 0 {
		t.Fatalf("watch: exit %d: %s", code, errOut)
	}
	var res evidence.Watch
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Threads) != 1 || res.Threads[0].TID != pid || res.Reasserts != 0 {
		t.Errorf("observe: %+v", res)
	}
	if after, _ := sched.GetAffinity(pid); !after.Equal(before) {
		t.Errorf("observing changed the mask from %s to %s", before, after)
	}

	// Kept on the target at nice 3 while watched, then put back. A user
	// who may not lower a nice value (adb shell's: no CAP_SYS_NICE, no
	// RLIMIT_NICE) could not put nice 3 back, so there only the mask is
	// kept and put back.
	beforeAttr, _ := sched.GetAttr(pid)
	args := []string{"watch", "--maintain", "--cpu", fmt.Sprint(cpu), "--nice", "3"}
	if f := sched.NiceLowering(); !f.Supported {
		t.Logf("this user may not lower a nice value (%s): --maintain keeps the mask alone", f.Evidence)
		args = args[:len(args)-2]
	}
	out, errOut, code = corepin(t, append(args, "--duration", "500ms", "--json", fmt.Sprint(pid))...)
	if code != 0 {
		t.Fatalf("watch --maintain: exit %d: %s", code, errOut)
	}
	res = evidence.Watch{}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if !before.Equal(cpuset.Of(cpu)) && (res.Reasserts == 0 || res.Restored != 1 || res.NotRestored != 0) {
		t.Errorf("maintain: %d re-assertions, %d threads put back, %d not (%v)", res.Reasserts, res.Restored, res.NotRestored, res.Errors)
	}
	mask, _ := sched.GetAffinity(pid)
	attr, _ := sched.GetAttr(pid)
	if !mask.Equal(before) || attr.Nice != beforeAttr.Nice {
		t.Errorf("after --maintain: mask %s, nice %d; want them put back to %s and %d", mask, attr.Nice, before, beforeAttr.Nice)
	}
}

func TestWatchBadPID(t *testing.T) {
	for _, args := range [][]string{{"watch"}, {"watch", "abc"}, {"watch", "-5"}} {
		if _, _, code := corepin(t, args...); code != exitUsage {
			t.Errorf("corepin %s: exit %d, want %d", strings.Join(args, " "), code, exitUsage)
		}
	}
	if _, errOut, code := corepin(t, "watch", "999999999"); code != exitFailure || !strings.Contains(errOut, "999999999") {
		t.Errorf("a process that does not exist: exit %d, %q", code, errOut)
	}
}
