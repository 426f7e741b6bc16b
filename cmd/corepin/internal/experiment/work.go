package experiment

import (
	"context"
	"fmt"
	"time"

	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// WorkTicks is how many of the kernel's ticks the key thread's work must
// last for its QoS level to act on it. A CPU-bound thread that the
// scheduler should set aside for the load runs on until a tick looks at
// it (or the load wakes, which a spinning load never does), so a thread
// newly on the CPU may finish work of one tick or two before any level
// matters: fib(30), 3 ms, took 3 ms at background beside two busy
// processes on a 250 Hz kernel, as fast as without them, and fib(34),
// 23 ms, took 17 times as long.
const WorkTicks = 5

// QuickFibFrom is the smallest work a quick experiment sizes from.
const QuickFibFrom = 30

// sizeFib returns the smallest n from QuickFibFrom to most whose fib(n)
// takes at least WorkTicks ticks of CPU time on cpu, and the note that
// says so; most and no note when none does, or none could be measured
// (the note of tooShort then says what the runs found).
func sizeFib(cpu, most int) (int, string) {
	tick, err := sched.Tick()
	if err != nil || most <= QuickFibFrom {
		return most, ""
	}
	want := WorkTicks * tick
	n, met := most, false
	launch.RunThread(context.Background(), launch.ThreadConfig{Request: session.Request{
		CPU: cpu, Ladder: session.AffinityOnly(), Accept: session.AnyRule(),
	}}, func(*session.Session) error {
		// Its own CPU time, not the clock's: beside other work on the CPU
		// fib(30) took 20 ms of the clock and 3 ms of its own.
		for i := QuickFibFrom; i <= most; i++ {
			start, err := sched.ThreadCPUTime(0)
			sum := fib(i)
			end, err2 := sched.ThreadCPUTime(0)
			if err != nil || err2 != nil || sum != fibAnswer(i) {
				return nil
			}
			if end-start >= want {
				n, met = i, true
				return nil
			}
		}
		return nil
	})
	if !met {
		return most, ""
	}
	return n, fmt.Sprintf("fib(%d) is the smallest work from fib(%d) up that lasts %d of the kernel's ticks (%v each) on CPU %d, the least for a level to act on",
		n, QuickFibFrom, WorkTicks, tick, cpu)
}

// tooShort is the note for a key thread whose quickest run lasted fewer
// than WorkTicks ticks, "" when it lasted long enough or the tick is not
// known.
func (res *QoSResult) tooShort() string {
	tick, err := sched.Tick()
	if err != nil {
		return ""
	}
	quickest := 0.0
	for _, lv := range res.Levels {
		for _, times := range [][]float64{lv.LoadedMs, lv.LoadedApartMs, lv.UnloadedMs} {
			for _, ms := range times {
				if quickest == 0 || ms < quickest {
					quickest = ms
				}
			}
		}
	}
	limit := float64(WorkTicks*tick) / float64(time.Millisecond)
	if quickest == 0 || quickest >= limit {
		return ""
	}
	return fmt.Sprintf("%s took %.1f ms at its quickest, under %d of the kernel's ticks (%v each): a busy thread runs on until a tick looks at it, so the levels had little chance to act; give a larger --work",
		res.Work, quickest, WorkTicks, tick)
}
