package watch

import (
	"context"
	"time"

	"corepin.dev/corepin/sched"
)

// Follow returns when ctx ends, the watched process exits, or gone says
// that nothing would read the result any more (the reader of the pipe it
// would go to has gone: corepin watch PID | head -1 once head ended);
// it returns whether gone said so. gone is asked once a period.
func (w *Watcher) Follow(ctx context.Context, gone func() bool) bool {
	for ctx.Err() == nil && sched.ProcessAlive(w.opts.PID) {
		select {
		case <-ctx.Done():
		case <-time.After(w.opts.Period):
		}
		if gone() {
			return true
		}
	}
	return false
}
