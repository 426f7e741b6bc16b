package session

import (
	"runtime"
	"testing"

	"corepin.dev/corepin/sched"
)

// onThrowaway runs f on a locked goroutine that exits without unlocking,
// so the runtime destroys the thread: a benchmark that changed its thread
// and stopped half-way never hands a changed thread back. f must report
// with b.Error, not b.Fatal, since it runs on another goroutine.
func onThrowaway(f func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		f()
	}()
	<-done
}

// BenchmarkBeginFinish is a whole session: capture, affinity, a one-step
// ladder, read-back, restore and its verification.
func BenchmarkBeginFinish(b *testing.B) {
	req := Request{CPU: lastCPU(), Ladder: CustomLadder(nil, 0, nice(-5), nil)}
	onThrowaway(func() {
		for b.Loop() {
			s, err := Begin(req)
			if err != nil {
				b.Error(err)
				return
			}
			if res := s.Finish(); !res.OK {
				b.Errorf("restore: %+v", res)
				return
			}
		}
	})
}

// BenchmarkRawCalls is the floor: the system calls a session needs, with
// nothing around them (get and set affinity, get and set attributes, getcpu,
// then the same to restore).
func BenchmarkRawCalls(b *testing.B) {
	if !sched.NiceLowering().Supported {
		b.Skip("needs privilege to lower nice: " + sched.NiceLowering().Evidence)
	}
	req := Request{CPU: lastCPU()}
	onThrowaway(func() {
		for b.Loop() {
			mask, _ := sched.GetAffinity(0)
			attr, _ := sched.GetAttr(0)
			if err := sched.SetAffinity(0, req.Mask()); err != nil {
				b.Error(err)
				return
			}
			if err := sched.SetAttr(0, sched.Attr{Policy: sched.Normal, Nice: -5}); err != nil {
				b.Error(err)
				return
			}
			sched.GetAttr(0)
			sched.GetCPU()
			sched.SetAttr(0, sched.Attr{Policy: attr.Policy, Nice: attr.Nice})
			sched.SetAffinity(0, mask)
		}
	})
}
