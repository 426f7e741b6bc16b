package watch

import (
	"context"
	"math"
	"os"
	"testing"
	"time"
)

func TestTicksCountMissed(t *testing.T) {
	var c ticks
	t0 := time.Unix(0, 0)
	c.begin(t0, 10*time.Millisecond)
	c.tick(t0.Add(10 * time.Millisecond))
	c.tick(t0.Add(21 * time.Millisecond)) // on time, within half a period
	c.tick(t0.Add(61 * time.Millisecond)) // 4 periods late: 3 missed
	// and none after it: of the 20 ticks due in 200 ms, 16 never came
	k := c.result(t0.Add(200*time.Millisecond), 10*time.Millisecond, "fifo:1")
	if k.Late != 1 || k.Missed != 16 || k.Expected != 20 || math.Abs(k.CPUShare-0.05) > 1e-9 || !k.Unvouched {
		t.Errorf("%+v", k)
	}
}

func TestPeriodFloor(t *testing.T) {
	for _, p := range []time.Duration{time.Nanosecond, -time.Second, MinPeriod - 1} {
		if _, err := Start(context.Background(), Options{PID: os.Getpid(), Period: p}); err == nil {
			t.Errorf("a period of %v was taken", p)
		}
	}
}

// TestTicksVouchUpToAQuarterMissed: a watcher may miss a quarter of its
// ticks and still vouch for what it saw, not more.
func TestTicksVouchUpToAQuarterMissed(t *testing.T) {
	for _, c := range []struct {
		lateBy      time.Duration // one stall, in periods
		wantVouched bool
	}{{4, true}, {5, true}, {6, false}} {
		var clock ticks
		t0 := time.Unix(0, 0)
		period := 10 * time.Millisecond
		clock.begin(t0, period)
		now := t0
		for now.Before(t0.Add(20 * period)) {
			now = now.Add(period)
			if now == t0.Add(5*period) {
				now = now.Add(c.lateBy * period)
			}
			clock.tick(now)
		}
		k := clock.result(now, 0, "fifo:1")
		if k.Unvouched == c.wantVouched {
			t.Errorf("a stall of %d periods: %d of %d ticks missed (%.2f), unvouched %v", c.lateBy, k.Missed, k.Expected, k.MissedShare, k.Unvouched)
		}
	}
}
