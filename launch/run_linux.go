package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/account"
	"corepin.dev/corepin/internal/kacct"
	"corepin.dev/corepin/internal/tree"
	"corepin.dev/corepin/internal/watch"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// signalNumber returns the number of a signal named like "SIGTERM".
func signalNumber(name string) int {
	if s := unix.SignalNum(name); s != 0 {
		return int(s)
	}
	return 0
}

// Run runs the command and returns its report. The error is set only when
// corepin itself failed; a command that could not start, was refused or
// failed is described in the report.
//
// The command's whole process tree is the run: it starts in a process
// group of its own, corepin is the subreaper of its orphans, and where the
// kernel allows it the tree runs in a cgroup made for it (see TreeReport).
// Whatever of the tree still runs when the command exits, times out or is
// interrupted is ended, and the cgroup is removed.
//
// A run goes through five steps, each below: prepare, start, contain,
// watch and end. What a step sets up is undone when Run returns, in the
// reverse order (run.close).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	r, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	defer r.close()
	cmd, err := r.start()
	if err != nil {
		return nil, err
	}
	if cmd == nil { // refused, or the command could not be started
		return r.rep, nil
	}
	r.contain(cmd)
	r.watch(ctx, cmd)
	return r.rep, r.end(cmd)
}

// run is one Run on its way: the config, the report being filled, the
// tree, the kernel's listeners, and what is to be undone at the end.
type run struct {
	cfg    Config
	target cpuset.Set
	rep    *Report
	tr     *tree.Tree
	// exits and events are nil where the kernel gives corepin no exit
	// statistics or process events (see internal/kacct).
	exits  *kacct.Exits
	events *kacct.Events
	// signals are the signals passed on to the tree; nil for none.
	signals <-chan os.Signal
	// release lets the thread that forked the command go: it is held
	// until the command is reaped (see holder).
	release     chan struct{}
	releaseOnce sync.Once
	timedOut    chan bool
	watcher     *watch.Watcher
	// What watch read as the command exited, before it was reaped.
	exited     time.Duration // corepin's clock at the exit
	exitRec    kacct.Record
	haveRec    bool
	eventWall  time.Duration
	haveEvents bool
	// undo is what close runs, last first.
	undo []func()
}

// prepare checks the config and sets up all that must exist before the
// command does: corepin's own threads off the target, the tree that will
// hold the command, the kernel's listeners and the signals to pass on.
func prepare(cfg Config) (*run, error) {
	if len(cfg.Args) == 0 {
		return nil, errors.New("no command to run")
	}
	if err := cfg.Request.Validate(); err != nil {
		return nil, err
	}
	if cfg.Grace == 0 {
		cfg.Grace = 2 * time.Second
	}
	r := &run{cfg: cfg, target: cfg.Request.Mask(), rep: &Report{Scheduling: evidence.Scheduling{Command: cfg.Args}}, release: make(chan struct{}), timedOut: make(chan bool, 1)}
	confine := r.confine() // read before corepin's threads move off the target
	restoreParent := keepOff(cfg.Root, r.target, &r.rep.Parent)
	r.onClose(func() { r.rep.Parent.Restored = restoreParent() == nil })
	r.rep.Tree = &evidence.TreeReport{}
	r.tr = tree.New(tree.Config{Root: cfg.Root, Target: r.target, CPUs: confine, NoCgroup: cfg.NoCgroup, Guard: cfg.Guard, Tracer: cfg.OnCPU.oncpu(), Report: r.rep.Tree})
	r.onClose(r.tr.Close)
	r.listen()
	r.subscribe()
	r.onClose(r.releaseThread)
	return r, nil
}

// confine is the CPUs the run's cgroup holds it to: the target, or for an
// observed run what corepin was allowed (its mask before keepOff), so
// that the program's own affinity choices are kept and the per-CPU
// account says where they took it.
func (r *run) confine() cpuset.Set {
	if allowed, err := sched.GetAffinity(unix.Getpid()); r.cfg.Observe && err == nil && !allowed.IsEmpty() {
		return allowed.Union(r.target)
	}
	return r.target
}

// listen opens the kernel's listeners, before the fork so that nothing of
// the command is missed. Where the kernel refuses one, the figure it
// gives falls back: rusage for the memory, taskstats or corepin's clock
// for the wall time.
func (r *run) listen() {
	if r.exits, _ = kacct.ListenExits(r.cfg.Root); r.exits != nil {
		r.onClose(r.exits.Close)
	}
	// Through the launcher the command's wall time starts at its exec,
	// which only the process events tell.
	if r.launcher() {
		if r.events, _ = kacct.ListenEvents(); r.events != nil {
			r.onClose(r.events.Close)
		}
	}
}

// subscribe subscribes to the signals to pass on before the command
// exists: one that comes while it starts is passed on as soon as it runs,
// not lost.
func (r *run) subscribe() {
	r.signals = r.cfg.Signals
	if r.signals != nil || !r.cfg.ForwardSignals {
		return
	}
	ch := make(chan os.Signal, 8)
	sigs := []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
	if signal.Ignored(syscall.SIGHUP) {
		sigs = sigs[:2] // started under nohup: the command keeps it ignored too
	}
	signal.Notify(ch, sigs...)
	r.onClose(func() { signal.Stop(ch) })
	r.signals = ch
}

// launcher says whether the command starts through the launcher: a QoS
// level always does, as fork does not copy it.
func (r *run) launcher() bool { return r.cfg.Request.QoS != nil || r.cfg.Launcher }

// start starts the command one way or the other, filling in the
// session's part of the report. It returns the running command, or nil
// when it was refused or could not start (the report says why); an error
// means corepin itself failed.
func (r *run) start() (*exec.Cmd, error) {
	var cmd *exec.Cmd
	var err error
	if r.launcher() {
		r.rep.Start = StartLauncher
		cmd, err = startLauncher(r.cfg, r.rep, r.tr, r.release)
	} else {
		r.rep.Start = StartFork
		var finish func()
		cmd, finish, err = startForked(r.cfg, r.rep, r.tr, r.release, r.releaseThread)
		if finish != nil {
			r.onClose(finish) // it releases the thread, then takes the session's restore report
		}
	}
	if err != nil {
		return nil, err
	}
	r.rep.Target.Node = r.cfg.Node
	return cmd, nil
}

// contain puts the running command's tree under corepin's hold: its
// timeout, the process events narrowed to it, and the signals passed on.
func (r *run) contain(cmd *exec.Cmd) {
	r.rep.Child.PID = cmd.Process.Pid
	r.tr.Started(cmd.Process.Pid)
	// The timeout counts from the command's exec, not from when corepin
	// is done setting up around it (the watcher's start takes seconds in
	// an emulated guest).
	if r.cfg.Timeout > 0 {
		left := max(0, r.cfg.Timeout-(monotonic()-r.rep.execAt))
		t := time.AfterFunc(left, func() {
			r.timedOut <- true
			r.tr.End(r.cfg.Grace)
		})
		r.onClose(func() { t.Stop() })
	}
	if r.events != nil {
		r.events.Follow(cmd.Process.Pid) // a failure keeps every exec and exit: Span filters them too
	}
	if r.signals != nil {
		r.onClose(forwardSignals(r.signals, r.tr, r.cfg.Grace))
	}
}

// watch starts the watcher, waits for the command to exit, and takes what
// must be read while its PID is still its own: the kernel's figures of
// its end and the watcher's last look. It waits without reaping: the
// watcher must be done with the PID before the kernel may give it to
// another process, and the process group lives as long as its leader is
// not reaped.
func (r *run) watch(ctx context.Context, cmd *exec.Cmd) {
	if r.cfg.WatchPeriod > 0 {
		opts := watchOptions(&r.rep.Session, r.rep.Child.PID, r.target, r.cfg.WatchPeriod)
		opts.Members = r.tr.Members
		opts.Maintain = !r.cfg.Observe
		var err error
		if r.watcher, err = watch.Start(ctx, opts); err != nil {
			r.rep.WatchError = err.Error() // a command that ended at once leaves nothing to watch
		}
	}
	// A cancelled context ends the tree as a timeout does. (corepin exec
	// passes a context that is never cancelled and forwards signals.)
	stopCancel := context.AfterFunc(ctx, func() { r.tr.End(r.cfg.Grace) })
	r.onClose(func() { stopCancel() })
	<-r.tr.Exited()
	r.exited = r.tr.ExitAt()
	if r.exits != nil {
		r.exitRec, r.haveRec = r.exits.Record(cmd.Process.Pid)
	}
	if r.events != nil {
		r.eventWall, r.haveEvents = r.events.Span(cmd.Process.Pid, r.rep.execAt)
	}
	switch {
	case r.watcher != nil:
		res := r.watcher.Stop()
		r.rep.Watch = &res
	case r.cfg.WatchPeriod == 0:
		// No watcher: read back once at the end, while the threads of the
		// command are still there to read.
		res := watch.ReadOnce(watchOptions(&r.rep.Session, r.rep.Child.PID, r.target, 0))
		r.rep.Watch = &res
	}
}

// end ends what is left of the tree, reaps the command and fills in the
// report: how the command ended, its wall time and memory, and whether
// the target was its own. The error is set only when waiting for the
// command failed for another reason than its own end.
func (r *run) end(cmd *exec.Cmd) error {
	r.tr.End(r.cfg.Grace)
	r.tr.Account()
	r.rep.Broken = r.rep.NoLongerHeld()
	waitErr := cmd.Wait()
	r.releaseThread()
	select {
	case <-r.timedOut:
		r.rep.Child.TimedOut = true
	default:
	}
	r.rep.Child.WallS, r.rep.Child.WallSource = r.wall()
	r.rep.Child.Times = r.times()
	fillChild(&r.rep.Child, cmd.ProcessState, r.tr.LastSent())
	if r.haveRec {
		r.rep.Child.MaxRSSKB, r.rep.Child.MaxRSSSource = r.exitRec.HiwaterKB, "taskstats"
	}
	account.Account(&r.rep.Scheduling, r.target)
	r.rep.Sharing.Others = r.tr.Others(&r.rep.Scheduling, r.target)
	r.rep.Sharing.Preemptors, r.rep.Sharing.PreemptorsError = r.tr.Preemptors(r.target)
	r.rep.Slices, r.rep.Sharing.Switches = r.tr.Switches()
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return fmt.Errorf("waiting for %s: %w", r.cfg.Args[0], waitErr)
	}
	return nil
}

// wall is the command's wall time in seconds and where it comes from:
// forked, the kernel's elapsed time from the fork; through the launcher,
// the kernel's time from the launcher's exec into the command to its
// exit, or else the elapsed time from the launcher's fork less the
// launcher's own age just before its exec (which leaves the exec's
// teardown of the launcher inside); corepin's clock, which sees the exit
// a scheduling latency late, where the kernel tells neither.
func (r *run) wall() (float64, string) {
	switch {
	case r.haveRec && r.rep.Start == StartFork:
		return r.exitRec.Elapsed.Seconds(), "taskstats"
	case r.haveEvents:
		return r.eventWall.Seconds(), "proc_events"
	case r.haveRec && r.rep.execElapsed > 0:
		return (r.exitRec.Elapsed - r.rep.execElapsed).Seconds(), "taskstats"
	}
	return (r.exited - r.rep.execAt).Seconds(), "clock"
}

// times places the command's start and end on both clocks (see
// evidence.Times): the monotonic readings, and the same shifted by the
// offset of the wall clock read beside the monotonic one now. nil when
// either end was not read.
func (r *run) times() *evidence.Times {
	if r.rep.execAt == 0 || r.exited == 0 {
		return nil
	}
	offset := time.Now().UnixNano() - int64(monotonic())
	start, end := int64(r.rep.execAt), int64(r.exited)
	return &evidence.Times{StartUnixNS: start + offset, EndUnixNS: end + offset, StartMonoNS: start, EndMonoNS: end}
}

// releaseThread lets the thread that forked the command go, once.
func (r *run) releaseThread() { r.releaseOnce.Do(func() { close(r.release) }) }

// onClose adds f to what close undoes.
func (r *run) onClose(f func()) { r.undo = append(r.undo, f) }

// close undoes what the steps set up, last first, as deferred calls would.
func (r *run) close() {
	for i := len(r.undo) - 1; i >= 0; i-- {
		r.undo[i]()
	}
}

// watchOptions keeps the work's threads on what its session's thread read
// back: the mask, and the attributes of the accepted ladder step.
func watchOptions(sr *evidence.Session, pid int, target cpuset.Set, period time.Duration) watch.Options {
	opts := watch.Options{PID: pid, Period: period, Mask: target, Avoid: target, Maintain: true, Children: true}
	if !sr.Readback.CPUs.IsEmpty() {
		opts.Mask = sr.Readback.CPUs
	}
	// The read-back names the policy; sched has a name for each the kernel has.
	if rb := sr.Readback; sr.Ladder.AcceptedStep > 0 {
		if p, err := sched.ParsePolicy(rb.Policy.String()); err == nil {
			opts.Want = &sched.Attr{Policy: p, Priority: rb.Priority, Nice: rb.Nice}
		}
	}
	return opts
}

// forwardSignals passes what arrives on signals on to the whole tree until
// stop is called. What still runs grace after the first is killed.
func forwardSignals(signals <-chan os.Signal, tr *tree.Tree, grace time.Duration) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	var kill *time.Timer // the forwarding goroutine's until finished is closed
	go func() {
		defer close(finished)
		for {
			select {
			case s := <-signals:
				tr.Signal(s.(syscall.Signal))
				if kill == nil {
					kill = time.AfterFunc(grace, func() { tr.Signal(unix.SIGKILL) })
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		if kill != nil {
			kill.Stop()
		}
	}
}

// fillChild records how the command ended. A command that timed out ended
// on corepin's signal even when it caught it and exited: its end is that
// signal, never an exit code, so timed_out, exit_code and signal agree.
func fillChild(c *evidence.ChildReport, ps *os.ProcessState, sent unix.Signal) {
	if ps == nil {
		return
	}
	c.UserS, c.SysS = ps.UserTime().Seconds(), ps.SystemTime().Seconds()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		c.MaxRSSKB, c.MaxRSSSource = ru.Maxrss, "rusage"
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	switch {
	case ok && ws.Signaled():
		name := unix.SignalName(ws.Signal())
		c.Signal = &name
	case c.TimedOut && sent != 0:
		name := unix.SignalName(sent)
		c.Signal = &name
	default:
		code := ps.ExitCode()
		c.ExitCode = &code
	}
}
