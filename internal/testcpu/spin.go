package testcpu

import (
	"time"

	"golang.org/x/sys/unix"
)

// Spin keeps the calling thread busy until it has used d of CPU time (its
// own thread clock), not of wall time: on a loaded machine a thread that
// spins for a fixed wall time may hardly run at all, and a test that
// counts its CPU time would then fail for the machine's sake. The
// goroutine should be locked to its thread.
func Spin(d time.Duration) {
	start := threadTime()
	for threadTime()-start < d {
	}
}

func threadTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
