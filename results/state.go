package results

import (
	"fmt"
	"os"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
)

// The states of a run. A run is written as Running when it starts; it ends
// Finished or Interrupted. A reader that finds a Running run whose writer
// is gone calls it Crashed: only the runs in its journal happened.
const (
	StateRunning     = "running"
	StateFinished    = "finished"
	StateInterrupted = "interrupted"
	StateCrashed     = "crashed"
)

// Writer is the process that writes a run while it is in progress: its
// PID and start time (clock ticks since boot, /proc/PID/stat field 22),
// which together name one process even after its PID is reused.
type Writer struct {
	Host       string `json:"host"`
	PID        int    `json:"pid"`
	StartTicks uint64 `json:"start_ticks"`
}

// ThisWriter names the calling process.
func ThisWriter() *Writer {
	w := &Writer{PID: os.Getpid()}
	w.Host, _ = os.Hostname()
	p, _ := procfs.Identify(fsroot.Host, w.PID)
	w.StartTicks = p.Start
	return w
}

// Gone says whether the writer has certainly ended: on this host, its PID
// is free under root's /proc or belongs to a process that started at
// another time. A writer on another host, or one that cannot be checked,
// is not known to be gone.
func (w *Writer) Gone(root fsroot.Root) bool {
	if w == nil || w.PID <= 0 {
		return true
	}
	if host, _ := os.Hostname(); w.Host != "" && host != w.Host {
		return false
	}
	return procfs.Process{PID: w.PID, Start: w.StartTicks}.Gone(root)
}

// Done says whether the run ended as planned.
func (r *Run) Done() bool { return r.State == StateFinished }

// StateNote says in a sentence what an unfinished run holds; "" for a
// finished one.
func (r *Run) StateNote() string {
	switch r.State {
	case StateFinished:
		return ""
	case StateInterrupted:
		return "the run was interrupted: only completed runs are recorded"
	case StateCrashed:
		return "the run did not finish (its writer ended without closing it): only completed runs are recorded"
	case StateRunning:
		return "the run is still in progress: only runs completed so far are shown"
	}
	return fmt.Sprintf("the run's state is %q: only completed runs are shown", r.State)
}
