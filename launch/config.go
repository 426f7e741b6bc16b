package launch

import (
	"corepin.dev/corepin/oncpu"
	"time"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/session"
)

// ThreadConfig is work to run on a thread of corepin itself (RunThread).
type ThreadConfig struct {
	// Request is where and how the work runs.
	Request session.Request
	// WatchPeriod is the watcher's period; 0 turns the watcher off.
	WatchPeriod time.Duration
	// Root is the folder holding proc/, where corepin lists its own
	// threads; the live system by default.
	Root fsroot.Root
	// OnCPU, when set, is a tracer of the target CPUs whose snapshots
	// around the work name who else ran there (see Sharing.Preemptors).
	OnCPU *oncpu.Tracer
}
