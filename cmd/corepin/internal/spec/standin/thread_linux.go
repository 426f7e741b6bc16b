package standin

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadTime is the calling thread's CPU time.
func threadTime() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// threadSleep sleeps the calling thread itself in the kernel. The
// competitor must not sleep through Go's timers: they are woken by
// another of the runtime's threads, at the fair class on the same CPU,
// which the work at nice -20 there starves, so that the competitor at
// FIFO ran far less than its half of the CPU.
func threadSleep(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
