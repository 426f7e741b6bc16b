package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/tree"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// The two ways a command starts (see the package's comment): forked from
// a thread of corepin that a session set up (startForked), or through the
// re-executed launcher (startLauncher). Either way the forking thread is
// held until the command is reaped (holder, startHeld).

// startForked runs the session on a locked thread of this process and
// forks the command from that thread, so the command starts as a copy of
// it: fork keeps the thread's mask, policy, nice and uclamp, and exec keeps
// them too. Go forks from the calling thread, and a locked goroutine stays
// on its thread. The read-back is the forking thread's, taken just before
// the fork. This saves the launcher's own start, which costs more than the
// rest of a launch. The thread is then put back, or destroyed where that
// fails, as session.Run decides. The command starts inside the run's tree
// (see tree.start).
func startForked(cfg Config, rep *Report, tr *tree.Tree, release chan struct{}, releaseThread func()) (*exec.Cmd, func(), error) {
	cmd := command(cfg, cfg.Args[0], cfg.Args[1:]...)
	tr.Prepare(cmd, false)
	hold := &holder{started: make(chan error, 1), release: release, stop: func() {}, report: make(chan evidence.Session, 1), wentOff: tr.LeftTarget}
	type outcome struct {
		rep           *evidence.Session
		startErr, err error
	}
	done := make(chan outcome, 1)
	go func() {
		sr, startErr, err := forkOnTarget(cfg.Request, func() error {
			_, err := tr.Start(cmd, &rep.execAt, offTarget(cfg.Request.Mask()))
			return err
		}, hold)
		done <- outcome{sr, startErr, err}
	}()
	var startErr error
	held := true
	select {
	case startErr = <-hold.started: // the session accepted and start ran; the thread is held
		rep.Session = <-hold.report
		if hold.offTarget != nil {
			rep.Parent.Note = joinNotes(rep.Parent.Note, "the thread that forked the command stays on the target while it runs: "+hold.offTarget.Error())
		}
	case o := <-done: // no session, or not accepted
		if o.rep == nil {
			return nil, nil, o.err // no session: nothing was changed or started
		}
		rep.Session = *o.rep
		startErr, held = o.startErr, false
	}
	// The session restores its thread once released; its restore report
	// is then the one that counts.
	var finish func()
	if held {
		finish = func() {
			releaseThread()
			if o := <-done; o.rep != nil {
				rep.Session.Restore = o.rep.Restore
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
func forkOnTarget(req session.Request, start func() error, hold *holder) (rep *evidence.Session, startErr, err error) {
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
			hold.offTarget = waitOffTarget(req.Mask())
			if hold.wentOff != nil {
				hold.wentOff()
			}
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
// The error says why the thread stays on the target.
func waitOffTarget(target cpuset.Set) error {
	off, err := sched.GetAffinity(unix.Getpid())
	if err != nil {
		return fmt.Errorf("reading the main thread's mask: %w", err)
	}
	if off.IsEmpty() || !off.Intersect(target).IsEmpty() {
		return nil
	}
	if err := moveThread(0, off); err != nil {
		return fmt.Errorf("moving it to CPUs %s: %w", off, err)
	}
	return nil
}

// offTarget moves the calling thread off target (waitOffTarget), where
// the run's tree asks for it once the thread has left the run's cpuset.
func offTarget(target cpuset.Set) func() { return func() { waitOffTarget(target) } }

// moveThread is sched.SetAffinity, which a test makes fail.
var moveThread = sched.SetAffinity

// holder keeps a forking thread alive for its children (see forkOnTarget).
type holder struct {
	started chan error
	release chan struct{}
	stop    func()
	report  chan evidence.Session // when not nil, gets the report as start ran
	// offTarget says why the held thread could not leave the target
	// (waitOffTarget); it is set before started is sent.
	offTarget error
	// wentOff, when set, is called on the thread once it has left the
	// target, before started is sent.
	wentOff func()
}

// startLauncher starts corepin again as the launcher, which runs the
// session on its own thread and then execs the command (see Main). It is
// the way when the request has a part that fork does not copy, such as a
// HarmonyOS QoS level, and the way to have the read-back taken by the
// process that becomes the command.
func startLauncher(cfg Config, rep *Report, tr *tree.Tree, release <-chan struct{}) (*exec.Cmd, error) {
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
	tr.Prepare(cmd, true)
	if err := startHeld(tr, cmd, release, offTarget(cfg.Request.Mask())); err != nil {
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
			rep.Session = *m.Report
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

// startHeld starts cmd inside the run's tree from a locked thread kept
// until release is closed: the kernel sends the parent-death signal when
// the forking thread ends (prctl(2), PR_SET_PDEATHSIG; golang/go#27505),
// and the Go runtime ends any thread whose goroutine exits locked, which
// an unrelated session that could not restore its thread may do to the
// thread cmd was started from. A thread that could not leave the run's
// cgroup ends with its goroutine.
func startHeld(tr *tree.Tree, cmd *exec.Cmd, release <-chan struct{}, off func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var at time.Duration // the launcher reports the exec's own time
		left, err := tr.Start(cmd, &at, off)
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

// joinNotes adds a note to the notes already made.
func joinNotes(notes, note string) string {
	if notes == "" {
		return note
	}
	return notes + "; " + note
}
