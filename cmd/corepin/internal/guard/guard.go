// Package guard finishes what a corepin that is killed (SIGKILL, the OOM
// killer, a crash) cannot: its run's tree would go on at nice -20 on the
// target, inside cgroups named for a dead PID, perhaps frozen, and the
// machine would stay tuned.
//
// The guard is corepin re-executed (Arg), started before the first such
// change, off the target and at a low priority, and it blocks on a pipe
// from corepin, costing nothing while corepin lives. corepin tells it,
// one line at a time (see msg), what to clean as it makes it: the run
// cgroups, the process group, the journal of a tune, the results folder.
// A normal end says "done" and the guard exits; end of file without it
// means corepin died, and the guard cleans up and says so on stderr and
// in the run's results.
//
// The command makes one Guard and hands it to what makes such changes:
// launch (a run's cgroups and process group) and system (a tune). A
// library that runs work needs none: its process ends its own runs.
package guard

import (
	"os"
	"sync"

	"corepin.dev/corepin/cmd/corepin/internal/system"
)

// Arg makes corepin the guard of another corepin (see Main): its command
// line names the guarded corepin, and a shield knows a running corepin by
// it, so the name is system's.
const Arg = system.GuardArg

// Guard is this process's side of its guard. Its process starts with the
// first change that would outlive corepin (Start) and ends with Dismiss.
// The zero Guard is ready to use; a nil *Guard guards nothing.
type Guard struct {
	mu sync.Mutex
	w  *os.File // the pipe's write end, once the process is starting
	// err says why there is no guard: its process could not start.
	err error
	// started is closed once the guard's process has started, or failed
	// to (err): its pipe takes messages before then.
	started   chan struct{}
	dismissed bool
}

// New is a guard whose process has not started yet.
func New() *Guard { return &Guard{} }
