package session

import (
	"runtime"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/sched"
)

// BenchmarkBeginFinish is a whole session: capture, affinity, a one-step
// ladder, read-back, restore and its verification.
func BenchmarkBeginFinish(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	opts := Options{CPU: testcpu.Usable(b).Last(), Ladder: CustomLadder(nil, 0, nice(-5), nil)}
	for b.Loop() {
		s, err := Begin(opts)
		if err != nil {
			b.Fatal(err)
		}
		if res := s.Finish(); !res.OK {
			b.Fatalf("restore: %+v", res)
		}
	}
}

// BenchmarkRawCalls is the floor: the system calls a session needs, with
// nothing around them (get and set affinity, get and set attributes, getcpu,
// then the same to restore).
func BenchmarkRawCalls(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := cpuset.Of(testcpu.Usable(b).Last())
	for b.Loop() {
		mask, _ := sched.GetAffinity(0)
		attr, _ := sched.GetAttr(0)
		if err := sched.SetAffinity(0, cpu); err != nil {
			b.Fatal(err)
		}
		if err := sched.SetAttr(0, sched.Attr{Policy: sched.Normal, Nice: -5}); err != nil {
			b.Skip("needs privilege to lower nice:", err)
		}
		sched.GetAttr(0)
		sched.GetCPU()
		sched.SetAttr(0, sched.Attr{Policy: attr.Policy, Nice: attr.Nice})
		sched.SetAffinity(0, mask)
	}
}
