package launch

import (
	"testing"
	"time"
)

// The target's busy time less the work's is others' only once corepin's
// own starting thread's time there is taken out too.
func TestOthersLeaveOutCorepinsOwnThread(t *testing.T) {
	before := busyReading{at: time.Second, tasks: map[int]time.Duration{3: 10 * time.Second}, source: BusyCpuacct}
	after := busyReading{at: 2 * time.Second, tasks: map[int]time.Duration{3: 10*time.Second + 900*time.Millisecond}, source: BusyCpuacct}
	o := others(before, after, 800*time.Millisecond, 60*time.Millisecond, "cgroup", true)
	if o == nil || o.OwnS != 0.06 || o.S < 0.0399 || o.S > 0.0401 {
		t.Fatalf("others %+v: want 40 ms, corepin's own 60 ms apart", o)
	}
	if o := others(before, after, 950*time.Millisecond, 60*time.Millisecond, "cgroup", true); o.S != 0 {
		t.Errorf("others %v s where the work and corepin account for more than the busy time: want 0", o.S)
	}
}

// The forking thread's time counts as corepin's own only once it said it
// left the target, and never where the run's CPU account held it.
func TestOwnOnTarget(t *testing.T) {
	tr := &tree{ownFrom: time.Millisecond, ownTo: 9 * time.Millisecond}
	if got := tr.ownOnTarget(); got != 0 {
		t.Errorf("before it left: %v, want 0", got)
	}
	tr.wentOff = true
	if got := tr.ownOnTarget(); got != 8*time.Millisecond {
		t.Errorf("after it left: %v, want 8ms", got)
	}
	tr.ownInWork = true
	if got := tr.ownOnTarget(); got != 0 {
		t.Errorf("inside the work's cpuacct: %v, want 0 (the work's)", got)
	}
}
