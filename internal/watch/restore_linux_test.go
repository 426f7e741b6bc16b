package watch

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/sched"
)

// until polls cond until it holds; the test's deadline ends a wait for
// something that never comes.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if dl, ok := t.Deadline(); ok && time.Until(dl) < 5*time.Second {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestRestorePutsBackWhatMaintainChanged: a watcher that keeps a shell on
// one CPU at nice 3 puts back, when it stops, the shell's mask and nice
// value and those of the child the shell started meanwhile, which took
// them from the shell; each is read back.
func TestRestorePutsBackWhatMaintainChanged(t *testing.T) {
	cpu := testcpu.Target(t)
	withNice := sched.NiceLowering().Supported // nice 3 back to 0 lowers it
	sh := exec.Command("sh", "-c", `read x; sleep 300 & echo $!; read x; kill $!`)
	stdin, err := sh.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer sh.Wait()
	defer stdin.Close()
	pid := sh.Process.Pid
	before, err := sched.GetAffinity(pid)
	if err != nil {
		t.Fatal(err)
	}
	beforeAttr, err := sched.GetAttr(pid)
	if err != nil {
		t.Fatal(err)
	}
	target := cpuset.Of(cpu)
	if before.Equal(target) {
		t.Skipf("the shell starts on CPU %d alone: nothing would change", cpu)
	}
	opts := Options{PID: pid, Period: 10 * time.Millisecond, Mask: target, Avoid: target, Maintain: true, Restore: true, Children: true}
	if withNice {
		opts.Want = &sched.Attr{Policy: sched.Normal, Nice: 3}
	}
	w, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	changed := func(tid int) bool {
		mask, err := sched.GetAffinity(tid)
		a, err2 := sched.GetAttr(tid)
		return err == nil && err2 == nil && mask.Equal(target) && (!withNice || a.Nice == 3)
	}
	until(t, "the shell on the target", func() bool { return changed(pid) })
	fmt.Fprintln(stdin)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	child, err2 := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || err2 != nil {
		t.Fatalf("the shell said %q: %v %v", line, err, err2)
	}
	if !changed(child) {
		t.Fatalf("the shell's child did not start with the shell's changed mask and nice value")
	}
	res := w.Stop()
	for _, tid := range []int{pid, child} {
		mask, _ := sched.GetAffinity(tid)
		a, _ := sched.GetAttr(tid)
		if !mask.Equal(before) || (withNice && (a.Policy != beforeAttr.Policy || a.Nice != beforeAttr.Nice)) {
			t.Errorf("thread %d ends with mask %s, %s nice %d; was %s, %s nice %d", tid, mask, a.Policy, a.Nice, before, beforeAttr.Policy, beforeAttr.Nice)
		}
	}
	if res.Restored < 2 || res.NotRestored != 0 {
		t.Errorf("%d threads put back, %d not: %v", res.Restored, res.NotRestored, res.Errors)
	}
	fmt.Fprintln(stdin) // the shell ends its child and itself
}

// TestWithoutRestoreTheChangeStays: a watcher not asked to restore (a
// child that ends with it) leaves its threads as it kept them.
func TestWithoutRestoreTheChangeStays(t *testing.T) {
	cpu := testcpu.Target(t)
	sleep := exec.Command("sleep", "300")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleep.Wait()
	defer sleep.Process.Kill()
	target := cpuset.Of(cpu)
	w, err := Start(context.Background(), Options{PID: sleep.Process.Pid, Period: 10 * time.Millisecond, Mask: target, Avoid: target, Maintain: true})
	if err != nil {
		t.Fatal(err)
	}
	until(t, "sleep on the target", func() bool {
		mask, err := sched.GetAffinity(sleep.Process.Pid)
		return err == nil && mask.Equal(target)
	})
	if res := w.Stop(); res.Restored != 0 {
		t.Errorf("%d threads put back without Restore", res.Restored)
	}
	if mask, _ := sched.GetAffinity(sleep.Process.Pid); !mask.Equal(target) {
		t.Errorf("mask %s after Stop, want the target %s kept", mask, target)
	}
}
