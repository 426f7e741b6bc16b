package launch

import (
	"io"
	"os"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/session"
)

// Config is a command to run and how to run it.
type Config struct {
	// Request is where and how the command runs.
	Request session.Request
	// Args is the command and its arguments.
	Args []string
	// Launcher starts the command through the re-executed launcher even
	// when forking it from a prepared thread would do; a QoS level always
	// goes through the launcher.
	Launcher bool
	// Self is the program that acts as the launcher: one whose main calls
	// Main when its first argument is Arg. It defaults to this program.
	Self   string
	Dir    string
	Env    []string // the command's environment; this process's by default
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Timeout ends the command with SIGTERM, then SIGKILL after Grace.
	Timeout time.Duration
	Grace   time.Duration // 2 s by default
	// WatchPeriod is the watcher's period; 0 turns the watcher off.
	WatchPeriod time.Duration
	// ForwardSignals passes SIGINT, SIGTERM and SIGHUP on to the command's
	// whole tree, and kills what still runs Grace after the first; SIGHUP
	// not when the program ignores it (started under nohup).
	ForwardSignals bool
	// Signals, when set, are passed on to the command instead: signals
	// that arrived before the command ran are passed on as soon as it
	// runs, so a program that caught them first (as corepin's command
	// does, to end every command alike) loses none.
	Signals <-chan os.Signal
	// Observe follows and measures the command's threads without putting
	// back what drifted: for programs whose own scheduling choices must be
	// kept (a helper thread it put at nice 10 stays there).
	Observe bool
	// NoCgroup keeps the run to its process group and corepin's
	// subreaping, without a cgroup even where one could be made.
	NoCgroup bool
	// Root is the folder holding proc/, where corepin lists its own
	// threads; the live system by default.
	Root fsroot.Root
	// Node is the target's NUMA node, recorded in the report.
	Node *int
	// OnCPU, when set, is a tracer of the target CPUs whose snapshots
	// around the run name who else ran there (see Sharing.Preemptors).
	OnCPU *Tracer
	// Guard, when set, finishes the run's end should this process be
	// killed first (corepin's command hands it its guard process, see
	// Guard); without one, a killed process leaves its run to the next
	// corepin's sweep.
	Guard Guard
}

// Guard is told of what a run makes that would outlive this process, as
// it makes it, by a process that ends it should this one be killed
// before it has (corepin's command hands it a guard process of its
// own). Start comes first; the others are said to a guard that runs.
type Guard interface {
	// Start starts the guard, off the CPUs avoid, unless it runs.
	Start(avoid cpuset.Set)
	// Ready waits until it has started, or failed to: the command starts
	// only then.
	Ready()
	// Cgroup names a run cgroup of that version by its directories,
	// keyed by controller ("" for v2).
	Cgroup(version int, name string, dirs map[string]string)
	// Group names a run's process group by its leader's PID and start
	// time; Ungroup says the leader was reaped.
	Group(pgid int, start uint64)
	Ungroup(pgid int)
}

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
	OnCPU *Tracer
}
