package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/oncpu"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/watch"
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
	// runs (see internal/interrupt's Forward).
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
	OnCPU *oncpu.Tracer
}

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
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if len(cfg.Args) == 0 {
		return nil, errors.New("no command to run")
	}
	if err := cfg.Request.Validate(); err != nil {
		return nil, err
	}
	if cfg.Grace == 0 {
		cfg.Grace = 2 * time.Second
	}
	target := cfg.Request.Mask()
	rep := &Report{Command: cfg.Args}
	// An observed run's cgroup holds it to what corepin was allowed, not
	// to the target: the program's own affinity choices are kept, and
	// the per-CPU account says where they took it.
	confine := target
	if allowed, err := sched.GetAffinity(unix.Getpid()); cfg.Observe && err == nil && !allowed.IsEmpty() {
		confine = allowed.Union(target)
	}
	restoreParent := keepOff(cfg.Root, target, &rep.Parent)
	defer func() { rep.Parent.Restored = restoreParent() == nil }()
	rep.Tree = &TreeReport{}
	tr := newTree(cfg.Root, target, confine, !cfg.NoCgroup, rep.Tree)
	tr.tracer = cfg.OnCPU
	defer tr.close()
	exits, _ := listenExits(cfg.Root) // nil without CAP_NET_ADMIN: rusage then
	if exits != nil {
		defer exits.close()
	}
	// Through the launcher the command's wall time starts at its exec,
	// which only the process events tell; they are listened to before the
	// fork, so that none is missed.
	launcher := cfg.Request.QoS != nil || cfg.Launcher
	var events *procEvents
	if launcher {
		events, _ = listenProcEvents() // nil where the kernel sends none to corepin: taskstats or the clock then
		if events != nil {
			defer events.close()
		}
	}

	// Subscribe to the signals before the command exists: one that comes
	// while it starts is passed on as soon as it runs, not lost.
	signals := cfg.Signals
	if signals == nil && cfg.ForwardSignals {
		ch := make(chan os.Signal, 8)
		sigs := []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
		if signal.Ignored(syscall.SIGHUP) {
			sigs = sigs[:2] // started under nohup: the command keeps it ignored too
		}
		signal.Notify(ch, sigs...)
		defer signal.Stop(ch)
		signals = ch
	}
	// Either way fills in the session's part of the report and returns the
	// running command, or nil when it was refused or could not start (the
	// report says why); an error means corepin itself failed.
	var cmd *exec.Cmd
	var err error
	// The thread that forks the command is held until the command is
	// reaped: the command's parent-death signal fires when that thread
	// ends, not when corepin does (see holder).
	release := make(chan struct{})
	var releaseOnce sync.Once
	releaseThread := func() { releaseOnce.Do(func() { close(release) }) }
	defer releaseThread()
	if !launcher {
		rep.Start = StartFork
		var finish func()
		cmd, finish, err = startForked(cfg, rep, tr, release, releaseThread)
		if finish != nil {
			defer finish() // after the release: the session's restore
		}
	} else {
		rep.Start = StartLauncher
		cmd, err = startLauncher(cfg, rep, tr, release)
	}
	if err != nil {
		return nil, err
	}
	rep.Target.Node = cfg.Node
	if cmd == nil { // refused, or the command could not be started
		return rep, nil
	}
	rep.Child.PID = cmd.Process.Pid
	tr.started(cmd.Process.Pid)
	if events != nil {
		events.follow(cmd.Process.Pid) // a failure keeps every exec and exit: span filters them too
	}
	if signals != nil {
		defer forwardSignals(signals, tr, cfg.Grace)()
	}
	var watcher *watch.Watcher
	if cfg.WatchPeriod > 0 {
		opts := watchOptions(&rep.Report, rep.Child.PID, target, cfg.WatchPeriod)
		opts.Members = tr.Members
		opts.Maintain = !cfg.Observe
		if watcher, err = watch.Start(ctx, opts); err != nil {
			rep.WatchError = err.Error() // a command that ended at once leaves nothing to watch
		}
	}
	// A cancelled context ends the tree as a timeout does. (corepin exec
	// passes a context that is never cancelled and forwards signals.)
	stopCancel := context.AfterFunc(ctx, func() { tr.end(cfg.Grace) })
	defer stopCancel()
	timedOut := make(chan bool, 1)
	if cfg.Timeout > 0 {
		t := time.AfterFunc(cfg.Timeout, func() {
			timedOut <- true
			tr.end(cfg.Grace)
		})
		defer t.Stop()
	}
	// Wait without reaping, stop the watcher, end what is left of the
	// tree, then reap: the watcher must be done with the PID before the
	// kernel may give it to another process, and the process group lives
	// as long as its leader is not reaped.
	<-tr.exited
	exited := tr.exitAt
	var exitRec taskRecord
	haveRec := false
	if exits != nil {
		exitRec, haveRec = exits.exitRecord(cmd.Process.Pid)
	}
	var eventWall time.Duration
	haveEvents := false
	if events != nil {
		eventWall, haveEvents = events.span(cmd.Process.Pid, rep.execAt)
	}
	if watcher != nil {
		res := watcher.Stop()
		rep.Watch = &res
	} else if cfg.WatchPeriod == 0 {
		// No watcher: read back once at the end, while the threads of the
		// command are still there to read.
		res := watch.ReadOnce(watchOptions(&rep.Report, rep.Child.PID, target, 0))
		rep.Watch = &res
	}
	tr.end(cfg.Grace)
	tr.account()
	rep.Broken = rep.NoLongerHeld()
	waitErr := cmd.Wait()
	releaseThread()
	select {
	case <-timedOut:
		rep.Child.TimedOut = true
	default:
	}
	// The command's wall time: forked, the kernel's elapsed time from the
	// fork; through the launcher, the kernel's time from the launcher's
	// exec into the command to its exit, or else the elapsed time from
	// the launcher's fork less the launcher's own age just before its
	// exec (which leaves the exec's teardown of the launcher inside);
	// corepin's clock, which sees the exit a scheduling latency late,
	// where the kernel tells neither.
	switch {
	case haveRec && rep.Start == StartFork:
		rep.Child.WallS, rep.Child.WallSource = exitRec.elapsed.Seconds(), "taskstats"
	case haveEvents:
		rep.Child.WallS, rep.Child.WallSource = eventWall.Seconds(), "proc_events"
	case haveRec && rep.execElapsed > 0:
		rep.Child.WallS, rep.Child.WallSource = (exitRec.elapsed - rep.execElapsed).Seconds(), "taskstats"
	default:
		rep.Child.WallS, rep.Child.WallSource = (exited - rep.execAt).Seconds(), "clock"
	}
	fillChild(&rep.Child, cmd.ProcessState, tr.lastSent())
	if haveRec {
		rep.Child.MaxRSSKB, rep.Child.MaxRSSSource = exitRec.hiwaterKB, "taskstats"
	}
	rep.account(target)
	rep.Sharing.Others = tr.othersOnTarget(rep, target)
	rep.Sharing.Preemptors, rep.Sharing.PreemptorsError = tr.preemptors(target)
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return rep, fmt.Errorf("waiting for %s: %w", cfg.Args[0], waitErr)
	}
	return rep, nil
}

// startForked runs the session on a locked thread of this process and
// forks the command from that thread, so the command starts as a copy of
// it: fork keeps the thread's mask, policy, nice and uclamp, and exec keeps
// them too. Go forks from the calling thread, and a locked goroutine stays
// on its thread. The read-back is the forking thread's, taken just before
// the fork. This saves the launcher's own start, which costs more than the
// rest of a launch. The thread is then put back, or destroyed where that
// fails, as session.Run decides. The command starts inside the run's tree
// (see tree.start).
func startForked(cfg Config, rep *Report, tr *tree, release chan struct{}, releaseThread func()) (*exec.Cmd, func(), error) {
	cmd := command(cfg, cfg.Args[0], cfg.Args[1:]...)
	tr.prepare(cmd)
	hold := &holder{started: make(chan error, 1), release: release, stop: func() {}, report: make(chan session.Report, 1)}
	type outcome struct {
		rep           *session.Report
		startErr, err error
	}
	done := make(chan outcome, 1)
	go func() {
		sr, startErr, err := forkOnTarget(cfg.Request, func() error {
			_, err := tr.start(cmd, &rep.execAt)
			return err
		}, hold)
		done <- outcome{sr, startErr, err}
	}()
	var startErr error
	held := true
	select {
	case startErr = <-hold.started: // the session accepted and start ran; the thread is held
		rep.Report = <-hold.report
	case o := <-done: // no session, or not accepted
		if o.rep == nil {
			return nil, nil, o.err // no session: nothing was changed or started
		}
		rep.Report = *o.rep
		startErr, held = o.startErr, false
	}
	// The session restores its thread once released; its restore report
	// is then the one that counts.
	var finish func()
	if held {
		finish = func() {
			releaseThread()
			if o := <-done; o.rep != nil {
				rep.Report.Restore = o.rep.Restore
			}
		}
	}
	switch {
	case !rep.Accept.OK:
		rep.Refused = rep.Accept.Why
		return nil, finish, nil
	case startErr != nil:
		rep.ExecErrno, _ = execErrno(startErr)
		rep.ExecError = innermost(startErr)
		return nil, finish, nil
	}
	rep.Child.Started = true
	return cmd, finish, nil
}

// forkOnTarget is how corepin forks anything on target: a session for req
// on a new locked thread (session.Run) and, when its rule accepts, start on
// that thread, so that what start forks begins as a copy of it. When hold
// is not nil the thread stays until hold is closed, and then stop runs on
// it: a child's parent-death signal fires when the thread that forked it
// ends, so the thread must outlive the children. The returned error is
// start's in startErr, the session's in err; the report is nil when no
// session began.
func forkOnTarget(req session.Request, start func() error, hold *holder) (rep *session.Report, startErr, err error) {
	rep, err = session.Run(req, func(s *session.Session) error {
		startErr = start()
		if hold != nil {
			if hold.report != nil {
				hold.report <- s.Report()
			}
			// The command has copied the thread's scheduling at the fork;
			// the thread is put back now, not after the command, so that
			// it does not wait out the run with a realtime policy or a
			// clamp. (The runtime never starts threads from a locked
			// thread, so nothing else copied it.)
			s.Finish()
			waitOffTarget(req.Mask())
			hold.started <- startErr
			<-hold.release
			hold.stop()
		}
		return startErr
	})
	if errors.Is(err, session.ErrNotAccepted) || errors.Is(err, session.ErrRestoreFailed) || (err != nil && startErr != nil) {
		err = nil // the report says what happened
	}
	return rep, startErr, err
}

// waitOffTarget moves the calling thread, held only so that it outlives
// the command it forked, to where corepin's other threads are kept (the
// main thread's mask, off the target's core), so that no corepin thread
// shares the measured CPUs while the work runs. The session's restore
// puts the thread's own mask back afterwards. Where the main thread is not
// kept off the target (one CPU for all), the thread stays where it is.
func waitOffTarget(target cpuset.Set) {
	off, err := sched.GetAffinity(unix.Getpid())
	if err != nil || off.IsEmpty() || !off.Intersect(target).IsEmpty() {
		return
	}
	sched.SetAffinity(0, off)
}

// holder keeps a forking thread alive for its children (see forkOnTarget).
type holder struct {
	started chan error
	release chan struct{}
	stop    func()
	report  chan session.Report // when not nil, gets the report as start ran
}

// startLauncher starts corepin again as the launcher, which runs the
// session on its own thread and then execs the command (see Main). It is
// the way when the request has a part that fork does not copy, such as a
// HarmonyOS QoS level, and the way to have the read-back taken by the
// process that becomes the command.
func startLauncher(cfg Config, rep *Report, tr *tree, release <-chan struct{}) (*exec.Cmd, error) {
	if cfg.Self == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding corepin's own executable: %w", err)
		}
		cfg.Self = self
	}
	specJSON, err := json.Marshal(spec{Request: cfg.Request, Args: cfg.Args})
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("making the report pipe: %w", err)
	}
	defer r.Close()
	cmd := command(cfg, cfg.Self, append([]string{Arg}, cfg.Args...)...)
	cmd.Env = append(append([]string{}, envOr(cfg.Env)...), specEnv+"="+string(specJSON))
	cmd.ExtraFiles = []*os.File{w}
	tr.prepare(cmd)
	if err := startHeld(tr, cmd, release); err != nil {
		w.Close()
		return nil, fmt.Errorf("starting the launcher %s: %w", cfg.Self, err)
	}
	w.Close()
	if err := readMessages(r, rep); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	if rep.Refused != "" || rep.ExecError != "" {
		cmd.Wait() // the launcher exits without running the command
		return nil, nil
	}
	rep.Child.Started = true
	return cmd, nil
}

// command is the exec.Cmd for name and args with the config's folder,
// environment and streams. It dies with the thread that forks it, so a
// corepin that is killed leaves no command behind; that thread is held
// until the command is reaped (see holder and startHeld).
func command(cfg Config, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Env = cfg.Env
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = cfg.Dir, cfg.Stdin, cfg.Stdout, cfg.Stderr
	return cmd
}

func envOr(env []string) []string {
	if env == nil {
		return os.Environ()
	}
	return env
}

// readMessages reads the launcher's messages until end-of-file.
func readMessages(r io.Reader, rep *Report) error {
	dec := json.NewDecoder(r)
	got := false
	for {
		var m message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the launcher's report: %w", err)
		}
		got = true
		if m.Failed != "" {
			return fmt.Errorf("launcher: %s", m.Failed)
		}
		if m.Report != nil {
			rep.Report = *m.Report
		}
		if m.Refused != "" {
			rep.Refused = m.Refused
		}
		if m.ExecError != "" {
			rep.ExecError, rep.ExecErrno = m.ExecError, m.ExecErrno
		}
		if m.ExecAtNS != 0 {
			rep.execAt, rep.execElapsed = time.Duration(m.ExecAtNS), time.Duration(m.ExecElapsedNS)
		}
	}
	if !got {
		return errors.New("the launcher exited without a report (is Self a program that calls launch.Main?)")
	}
	return nil
}

// watchOptions keeps the work's threads on what its session's thread read
// back: the mask, and the attributes of the accepted ladder step.
func watchOptions(sr *session.Report, pid int, target cpuset.Set, period time.Duration) watch.Options {
	opts := watch.Options{PID: pid, Period: period, Mask: target, Avoid: target, Maintain: true, Children: true}
	if !sr.Readback.CPUs.IsEmpty() {
		opts.Mask = sr.Readback.CPUs
	}
	if sr.Ladder.AcceptedStep > 0 {
		rb := sr.Readback
		opts.Want = &sched.Attr{Policy: rb.Policy, Priority: rb.Priority, Nice: rb.Nice}
	}
	return opts
}

// forwardSignals passes what arrives on signals on to the whole tree until
// stop is called. What still runs grace after the first is killed.
func forwardSignals(signals <-chan os.Signal, tr *tree, grace time.Duration) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	var kill *time.Timer // the forwarding goroutine's until finished is closed
	go func() {
		defer close(finished)
		for {
			select {
			case s := <-signals:
				tr.signal(s.(syscall.Signal))
				if kill == nil {
					kill = time.AfterFunc(grace, func() { tr.signal(unix.SIGKILL) })
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
func fillChild(c *ChildReport, ps *os.ProcessState, sent unix.Signal) {
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

// startHeld starts cmd inside the run's tree from a locked thread kept
// until release is closed: the kernel sends the parent-death signal when
// the forking thread ends (prctl(2), PR_SET_PDEATHSIG; golang/go#27505),
// and the Go runtime ends any thread whose goroutine exits locked, which
// an unrelated session that could not restore its thread may do to the
// thread cmd was started from. A thread that could not leave the run's
// cgroup ends with its goroutine.
func startHeld(tr *tree, cmd *exec.Cmd, release <-chan struct{}) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var at time.Duration // the launcher reports the exec's own time
		left, err := tr.start(cmd, &at)
		errc <- err
		if err == nil {
			<-release
		}
		if left {
			runtime.UnlockOSThread()
		}
	}()
	return <-errc
}
