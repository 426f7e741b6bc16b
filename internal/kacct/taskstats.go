package kacct

import "time"

// Record is what corepin takes from a task's statistics.
type Record struct {
	PID       int
	HiwaterKB int64 // the memory's high-water mark
	// Elapsed is the time since the task began (its fork), to its exit
	// in an exit record: the kernel's own clock, not corepin's view.
	Elapsed time.Duration
}
