package guard

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

// The write end of the guard's pipe is close-on-exec, so no command
// corepin starts holds it: the guard sees end of file when corepin's own
// process ends.

// fd is the pipe in the guard: the first of exec.Cmd.ExtraFiles.
const fd = 3

// Start starts the guard's process, off the CPUs avoid, unless it runs
// or was dismissed; what must not happen without it waits for Ready.
func (g *Guard) Start(avoid cpuset.Set) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w == nil && g.err == nil && !g.dismissed {
		g.w, g.err = g.start(avoid)
	}
}

// Ready waits until the guard's process has started, or failed to start,
// if one is starting. A run's command starts after it, a tune's first
// write too.
func (g *Guard) Ready() {
	if g == nil {
		return
	}
	g.mu.Lock()
	started := g.started
	g.mu.Unlock()
	if started != nil {
		<-started
	}
}

// Cgroup tells the guard of a run cgroup: its name and directories, by
// controller ("" on v2).
func (g *Guard) Cgroup(version int, name string, dirs map[string]string) {
	c := &cgroupMsg{Version: version, Name: name, Dirs: map[string]string{}}
	for k, v := range dirs {
		c.Dirs[k] = v
	}
	g.send(msg{Cgroup: c})
}

// Group tells the guard of a run's process group: its ID, its leader's
// PID, and the leader's start time.
func (g *Guard) Group(pgid int, start uint64) {
	g.send(msg{Group: &groupMsg{PGID: pgid, Start: start}})
}

// Ungroup tells the guard that the group's leader was reaped: its ID may
// go to another process.
func (g *Guard) Ungroup(pgid int) { g.send(msg{Ungroup: pgid}) }

// Tune starts the guard, off the CPUs avoid, before a tune of the machine
// under root whose journal is journal ("" for the default), and tells it
// to put the machine back if corepin dies.
func (g *Guard) Tune(avoid cpuset.Set, root fsroot.Root, journal string) {
	g.Start(avoid)
	g.send(msg{Journal: &tuneMsg{Root: string(root), Journal: journal}})
	g.Ready()
}

// Results tells the guard, started off the CPUs avoid, where the run's
// results folders are made (results.Create's base), so that it records
// there what it did.
func (g *Guard) Results(avoid cpuset.Set, dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	g.Start(avoid)
	g.send(msg{Results: dir})
}

// Dismiss tells the guard that corepin ends normally, having put
// everything back itself; the guard exits, and none starts again. It
// returns why there was no guard, when one was needed and could not be
// started.
func (g *Guard) Dismiss() error {
	if g == nil {
		return nil
	}
	g.Ready()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w != nil {
		g.w.Write(msg{Done: true}.line())
		g.w.Close()
		g.w = nil
	}
	g.dismissed = true
	return g.err
}

// send writes m to a guard that runs as one line, in one write: a pipe
// keeps a write of less than PIPE_BUF whole, so a corepin killed while
// writing leaves no half line. A guard that has died gives EPIPE, which
// is ignored.
func (g *Guard) send(m msg) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w != nil {
		g.w.Write(m.line())
	}
}

// nice is the guard's nice value until corepin dies, where it may go back
// to nice 0 then (root, or a large RLIMIT_NICE; elsewhere it starts at
// corepin's). Its start (the Go runtime and corepin's packages, about a
// millisecond of CPU) comes while corepin sets up the command, on the
// CPUs corepin keeps to: at nice 0 it took half of them, and corepin exec
// took 2.36 times as long as taskset and chrt, against 2.10 at nice 19.
// Asleep on its pipe it costs nothing at any nice value.
const nice = 19

// start starts the guard and returns the write end of its pipe at once;
// the process starts meanwhile, and closes g.started when it has (Ready),
// so that corepin makes the run's cgroups and sets up the command's
// thread beside its start (0.3 ms of corepin exec's). It starts from a
// thread of its own whose mask leaves out avoid (and its SMT siblings
// where another core is allowed) and whose nice value is nice, so that
// every thread of the guard is born there: the thread that happens to
// fork may be a session's, at nice -20 on the target. Called with g.mu
// held.
func (g *Guard) start(avoid cpuset.Set) (*os.File, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting corepin's guard: %w", err)
	}
	st, err := procfs.ReadTaskStat(fsroot.Host, os.Getpid())
	if err != nil {
		return nil, errors.New("starting corepin's guard: cannot read corepin's own start time")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting corepin's guard: %w", err)
	}
	cmd := exec.Command(self, Arg, strconv.Itoa(os.Getpid()), strconv.FormatUint(st.StartTime, 10))
	cmd.ExtraFiles = []*os.File{r}
	cmd.Stderr = os.Stderr
	// One P is plenty for a process that reads a pipe; a process group of
	// its own keeps a terminal's Ctrl-C, meant for corepin, from it.
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	started := make(chan struct{})
	g.started = started
	go func() {
		defer close(started)
		err := startOff(cmd, avoid)
		r.Close()
		if err == nil {
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.w == w { // not dismissed meanwhile
			w.Close()
			g.w = nil
		}
		g.err = fmt.Errorf("starting corepin's guard: %w", err)
	}()
	return w, nil
}

// startOff starts cmd from a throwaway thread off the CPUs avoid, at
// nice.
func startOff(cmd *exec.Cmd, avoid cpuset.Set) error {
	done := sched.Throwaway()
	defer done()
	if mask, err := sched.GetAffinity(0); err == nil && !avoid.IsEmpty() {
		core, _ := topology.CoreSiblings("/", avoid)
		if off, _, err := sched.OffCPUs(mask, avoid, core); err == nil {
			sched.SetAffinity(0, off)
		}
	}
	// A throwaway thread may try: one that may lower its nice value may
	// lower the guard's again. One that may not is left as it is (a
	// refused request changes nothing), and so is the guard.
	if now, err := sched.GetNice(0); err == nil && sched.SetNice(0, now-1) == nil {
		sched.SetNice(0, nice)
	}
	return cmd.Start()
}
