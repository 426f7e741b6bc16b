package busy

import (
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/sched"
)

// Two readings of this machine's CPUs come from one source, in order, and
// the busy time and the reading thread's own CPU time only grow.
func TestMeterReadsTheLiveMachine(t *testing.T) {
	cpus, err := sched.GetAffinity(0)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := cgroupfs.Find(fsroot.Host)
	m := NewMeter(fsroot.Host, h, cpus)
	a, ok1 := m.Read()
	for start := ThreadCPU(); ThreadCPU()-start < 20e6; { // 20 ms of CPU time
	}
	b, ok2 := m.Read()
	if !ok1 || !ok2 || a.Source != b.Source || (a.Source != Cpuacct && a.Source != ProcStat) {
		t.Fatalf("readings %v %v from %q and %q", ok1, ok2, a.Source, b.Source)
	}
	if b.At <= a.At || b.Self <= a.Self || !b.Wall.After(a.Wall) {
		t.Errorf("the second reading is not later: %v %v, self %v %v", a.At, b.At, a.Self, b.Self)
	}
	var before, after int64
	for _, cpu := range cpus.CPUs() {
		before, after = before+int64(a.Tasks[cpu]), after+int64(b.Tasks[cpu])
	}
	if len(b.Tasks) != cpus.Len() || after < before {
		t.Errorf("busy time %v then %v over %d CPUs of %s", before, after, len(b.Tasks), cpus)
	}
}

// Without the cgroup hierarchies the meter reads /proc/stat.
func TestMeterWithoutCgroups(t *testing.T) {
	r, ok := NewMeter(fsroot.Host, nil, cpuset.Of(0)).Read()
	if !ok || r.Source != ProcStat {
		t.Errorf("read %v from %q, want /proc/stat's", ok, r.Source)
	}
}
