package watch

import (
	"time"

	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// The watcher has to keep up with the threads it puts back: a process
// whose threads escape to the watcher's CPU at nice -20 starves a watcher
// at nice 0 (it then takes a handful of samples in seconds, and residency
// means nothing). So the watcher's thread asks for a priority above the
// work's, counts the ticks it was late for or missed, and says so; and its
// period has a floor, so that it cannot become the load itself.
const (
	// MinPeriod is the shortest period a watcher takes.
	MinPeriod = time.Millisecond
	// MissedTicksWarn is the share of missed ticks above which the
	// watcher's residency cannot be vouched for. A starved watcher misses
	// nine in ten. Among 500 escaped threads at nice -20 a watcher at
	// fifo:1 still stalls now and then, with the runtime threads it
	// depends on: measured, up to 4 of 20 ticks missed alone and 6 beside
	// a CPU load, each time within 0.03 of the residency the threads saw
	// themselves; and once, beside the other packages' tests, 9 of 20
	// with it 0.12 off. So a watcher that missed more than a quarter no
	// longer vouches for what it saw.
	MissedTicksWarn = 0.25
)

// watcherPriorities are the watcher's requests: a realtime FIFO
// priority of 1 runs before any normal thread, whatever its nice value,
// and costs nothing while the watcher sleeps; where realtime is refused,
// nice -20 at least ties with the work's best nice value.
var watcherPriorities = []struct {
	name string
	attr sched.Attr
}{
	{"fifo:1", sched.Attr{Policy: sched.FIFO, Priority: 1}},
	{"nice -20", sched.Attr{Policy: sched.Normal, Nice: -20}},
}

// PriorityAsIs, as Options.Priority, leaves the watcher's thread at the
// priority it started with.
const PriorityAsIs = "as-is"

// ticks counts a loop's ticks against the clock.
type ticks struct {
	period     time.Duration
	start      time.Time
	last       time.Time
	n          int
	late       int
	missed     int
	maxLatency time.Duration
}

func (t *ticks) begin(now time.Time, period time.Duration) {
	t.period, t.start, t.last = period, now, now
}

// tick records a tick at now: late when it came more than half a period
// after it was due, and missed for each whole period it skipped (a Go
// ticker drops the ticks a slow receiver could not take).
func (t *ticks) tick(now time.Time) {
	t.n++
	gap := now.Sub(t.last)
	t.last = now
	if over := gap - t.period; over > t.period/2 {
		t.late++
		t.missed += int(over / t.period)
		t.maxLatency = max(t.maxLatency, over)
	}
}

func (t *ticks) result(end time.Time, cpu time.Duration, priority string) evidence.KeepUp {
	k := evidence.KeepUp{Priority: priority, Late: t.late, Missed: t.missed, MaxLateMs: float64(t.maxLatency) / 1e6}
	watched := end.Sub(t.start)
	k.WatchedS = watched.Seconds()
	if t.period > 0 {
		k.Expected = int(watched / t.period)
	}
	// Ticks that never came at all, at the end, are missed too.
	k.Missed = max(k.Missed, k.Expected-t.n-1)
	if k.Expected > 0 {
		k.MissedShare = float64(k.Missed) / float64(k.Expected)
	}
	if watched > 0 {
		k.CPUShare = cpu.Seconds() / watched.Seconds()
	}
	k.Unvouched = k.Expected >= 10 && k.MissedShare > MissedTicksWarn
	k.TooExpensive = k.WatchedS >= 1 && k.CPUShare > evidence.CPUShareWarn
	return k
}
