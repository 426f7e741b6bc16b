//go:build !linux

package standin

import "time"

// threadTime is the process's wall clock where no thread clock is read:
// the stand-in runs its competitor on Linux only.
func threadTime() time.Duration { return time.Duration(time.Now().UnixNano()) }

// threadSleep sleeps as Go does: the competitor runs on Linux only.
func threadSleep(d time.Duration) { time.Sleep(d) }
