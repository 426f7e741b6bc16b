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
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
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
	// ForwardSignals passes SIGINT, SIGTERM and SIGHUP on to the command.
	ForwardSignals bool
	// Root is the folder holding proc/, where corepin lists its own
	// threads; the live system by default.
	Root fsroot.Root
	// Node is the target's NUMA node, recorded in the report.
	Node *int
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
	restoreParent := keepOff(cfg.Root, target, &rep.Parent)
	defer func() { rep.Parent.Restored = restoreParent() == nil }()

	// Subscribe to the signals before the command exists: one that comes
	// while it starts is passed on as soon as it runs, not lost.
	var signals chan os.Signal
	if cfg.ForwardSignals {
		signals = make(chan os.Signal, 8)
		signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		defer signal.Stop(signals)
	}
	// Either way fills in the session's part of the report and returns the
	// running command, or nil when it was refused or could not start (the
	// report says why); an error means corepin itself failed.
	var cmd *exec.Cmd
	var err error
	started := time.Now()
	if cfg.Request.QoS == nil && !cfg.Launcher {
		rep.Start = StartFork
		cmd, err = startForked(cfg, rep)
	} else {
		rep.Start = StartLauncher
		cmd, err = startLauncher(cfg, rep)
	}
	if err != nil {
		return nil, err
	}
	rep.Target.Node = cfg.Node
	if cmd == nil { // refused, or the command could not be started
		return rep, nil
	}
	rep.Child.PID = cmd.Process.Pid
	if signals != nil {
		defer forwardSignals(signals, cmd.Process)()
	}
	var watcher *watch.Watcher
	if cfg.WatchPeriod > 0 {
		if watcher, err = watch.Start(ctx, watchOptions(&rep.Report, rep.Child.PID, target, cfg.WatchPeriod)); err != nil {
			rep.WatchError = err.Error() // a command that ended at once leaves nothing to watch
		}
	}
	// A cancelled context ends the command as a timeout does. (corepin
	// exec passes a context that is never cancelled and forwards signals.)
	stopCancel := context.AfterFunc(ctx, func() {
		cmd.Process.Signal(syscall.SIGTERM)
		time.AfterFunc(cfg.Grace, func() { cmd.Process.Kill() })
	})
	defer stopCancel()
	timedOut := make(chan bool, 1)
	if cfg.Timeout > 0 {
		t := time.AfterFunc(cfg.Timeout, func() {
			timedOut <- true
			cmd.Process.Signal(syscall.SIGTERM)
			time.AfterFunc(cfg.Grace, func() { cmd.Process.Kill() })
		})
		defer t.Stop()
	}
	// Wait without reaping, stop the watcher, then reap: the watcher must
	// be done with the PID before the kernel may give it to another process.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	wall := time.Since(started)
	if watcher != nil {
		res := watcher.Stop()
		rep.Watch = &res
	} else if cfg.WatchPeriod == 0 {
		// No watcher: read back once at the end, while the threads of the
		// command are still there to read.
		res := watch.ReadOnce(watchOptions(&rep.Report, rep.Child.PID, target, 0))
		rep.Watch = &res
	}
	rep.Broken = rep.NoLongerHeld()
	waitErr := cmd.Wait()
	select {
	case <-timedOut:
		rep.Child.TimedOut = true
	default:
	}
	fillChild(&rep.Child, cmd.ProcessState, wall)
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
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
// fails, as session.Run decides.
func startForked(cfg Config, rep *Report) (*exec.Cmd, error) {
	cmd := command(cfg, cfg.Args[0], cfg.Args[1:]...)
	sr, startErr, err := forkOnTarget(cfg.Request, func() error { return cmd.Start() }, nil)
	if sr == nil {
		return nil, err // no session: nothing was changed or started
	}
	rep.Report = *sr
	switch {
	case !rep.Accept.OK:
		rep.Refused = rep.Accept.Why
		return nil, nil
	case startErr != nil:
		rep.ExecErrno, _ = execErrno(startErr)
		rep.ExecError = innermost(startErr)
		return nil, nil
	}
	rep.Child.Started = true
	return cmd, nil
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
	rep, err = session.Run(req, func(*session.Session) error {
		startErr = start()
		if hold != nil {
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

// holder keeps a forking thread alive for its children (see forkOnTarget).
type holder struct {
	started chan error
	release chan struct{}
	stop    func()
}

// startLauncher starts corepin again as the launcher, which runs the
// session on its own thread and then execs the command (see Main). It is
// the way when the request has a part that fork does not copy, such as a
// HarmonyOS QoS level, and the way to have the read-back taken by the
// process that becomes the command.
func startLauncher(cfg Config, rep *Report) (*exec.Cmd, error) {
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
	if err := cmd.Start(); err != nil {
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
// environment and streams.
func command(cfg Config, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
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

// forwardSignals passes what arrives on signals on to p until stop is
// called.
func forwardSignals(signals <-chan os.Signal, p *os.Process) (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-signals:
				p.Signal(s)
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}

func fillChild(c *ChildReport, ps *os.ProcessState, wall time.Duration) {
	c.WallS = wall.Seconds()
	if ps == nil {
		return
	}
	c.UserS, c.SysS = ps.UserTime().Seconds(), ps.SystemTime().Seconds()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		c.MaxRSSKB = ru.Maxrss
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	switch {
	case ok && ws.Signaled():
		name := unix.SignalName(ws.Signal())
		c.Signal = &name
	default:
		code := ps.ExitCode()
		c.ExitCode = &code
	}
}
