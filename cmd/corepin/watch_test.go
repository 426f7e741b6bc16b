package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/watch"
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
	var res watch.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Threads) != 1 || res.Threads[0].TID != pid || res.Reasserts != 0 {
		t.Errorf("observe: %+v", res)
	}
	if after, _ := sched.GetAffinity(pid); !after.Equal(before) {
		t.Errorf("observing changed the mask from %s to %s", before, after)
	}

	_, errOut, code = corepin(t, "watch", "--maintain", "--cpu", fmt.Sprint(cpu), "--nice", "3", "--duration", "500ms", fmt.Sprint(pid))
	if code != 0 {
		t.Fatalf("watch --maintain: exit %d: %s", code, errOut)
	}
	mask, _ := sched.GetAffinity(pid)
	attr, _ := sched.GetAttr(pid)
	if !mask.Equal(cpuset.Of(cpu)) || attr.Nice != 3 {
		t.Errorf("after --maintain: mask %s, nice %d; want %d and 3", mask, attr.Nice, cpu)
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
