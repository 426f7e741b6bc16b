package sched

import (
	"fmt"
	"strconv"
	"strings"

	"corepin.dev/corepin/fsroot"
)

// RTThrottle is the kernel's realtime throttle: realtime threads may run
// Runtime of every Period (/proc/sys/kernel/sched_rt_runtime_us and
// sched_rt_period_us, Documentation/scheduler/sched-rt-group.rst); the
// rest of each period is kept for other work. A Runtime of -1 lifts it.
type RTThrottle struct {
	RuntimeUS, PeriodUS int64
}

// ReadRTThrottle reads the throttle's two sysctls under root.
func ReadRTThrottle(root fsroot.Root) (RTThrottle, error) {
	var t RTThrottle
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"sched_rt_runtime_us", &t.RuntimeUS}, {"sched_rt_period_us", &t.PeriodUS}} {
		data, err := root.ReadFile("/proc/sys/kernel/" + f.name)
		if err != nil {
			return t, fmt.Errorf("reading the realtime throttle: %w", err)
		}
		if *f.dst, err = strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err != nil {
			return t, fmt.Errorf("reading the realtime throttle: %s: %w", f.name, err)
		}
	}
	if t.PeriodUS <= 0 {
		return t, fmt.Errorf("reading the realtime throttle: sched_rt_period_us is %d", t.PeriodUS)
	}
	return t, nil
}

// Active reports whether realtime threads are held back at all.
func (t RTThrottle) Active() bool { return t.RuntimeUS >= 0 && t.RuntimeUS < t.PeriodUS }

// Cost is the share of every second a realtime thread may be held back.
func (t RTThrottle) Cost() float64 {
	if !t.Active() {
		return 0
	}
	return float64(t.PeriodUS-t.RuntimeUS) / float64(t.PeriodUS)
}

// Warning says what the throttle costs a realtime thread, or "" when it
// costs nothing.
func (t RTThrottle) Warning() string {
	if !t.Active() {
		return ""
	}
	return fmt.Sprintf("realtime is throttled: sched_rt_runtime_us is %d of every %d µs, so a realtime thread can be held back %.0f ms of every second (%.1f%%); nice -20 is not throttled (writing -1 to /proc/sys/kernel/sched_rt_runtime_us lifts the throttle)",
		t.RuntimeUS, t.PeriodUS, 1000*t.Cost(), 100*t.Cost())
}
