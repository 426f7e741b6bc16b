package watch

import (
	"fmt"
	"time"
)

// Describe says in a line what a watcher with these options does until
// it ends: for duration when it is above zero, else until the process
// exits or Ctrl-C.
func (o Options) Describe(duration time.Duration) string {
	line := fmt.Sprintf("watching process %d and its children every %v", o.PID, o.Period)
	if o.Maintain {
		line += fmt.Sprintf(", keeping them on CPUs %s", o.Mask)
	}
	if duration > 0 {
		return line + fmt.Sprintf(", for %v or until it exits", duration)
	}
	return line + ", until it exits or Ctrl-C"
}
