package launch

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// StartReplace: corepin set up its own main thread and became the command
// with execve, as taskset and chrt do; nothing watched the command or saw
// it end.
const StartReplace = "replace"

// ErrNotMainThread is returned by Replace when it is called from another
// thread than the process's main thread, whose ID is the process's.
var ErrNotMainThread = errors.New("replacing the process: the calling goroutine must be locked to the main thread")

// Replace sets up the calling thread with the request, reads it back and,
// when the rule accepts, becomes the command with execve, the way taskset
// and chrt do: the command keeps this process's ID, its thread and its
// standard streams, and nobody watches it, keeps corepin's threads off the
// target or learns its exit status. The calling goroutine must be locked
// to the main thread (corepin's main locks it in init), because the thread
// that calls execve is the one the command continues on.
//
// before, when not nil, is called with the report just before the exec,
// to keep it; an error from it stops the exec. Replace returns only when
// the command did not replace the process: with the report saying why
// (refused by the rule, not found, not executable; its ExitCode is the
// shell's code for that) or with an error when corepin itself failed. A
// refused request is restored first; after a failed exec the thread keeps
// its scheduling, as the process is about to exit.
func Replace(req session.Request, args []string, env []string, before func(*Report) error) (*Report, error) {
	if len(args) == 0 {
		return nil, errors.New("no command to run")
	}
	if sched.Gettid() != os.Getpid() {
		return nil, ErrNotMainThread
	}
	if env == nil {
		env = os.Environ()
	}
	// Look the command up before anything changes: a command that is not
	// there needs no session.
	rep := &Report{Scheduling: evidence.Scheduling{Command: args, Start: StartReplace}}
	rep.Child.PID = os.Getpid()
	rep.WatchError = "not watched: corepin became the command (replace)"
	path, err := exec.LookPath(args[0])
	if err != nil {
		rep.ExecErrno, _ = execErrno(err)
		rep.ExecError = innermost(err)
		return rep, nil
	}
	s, err := session.Begin(req)
	if err != nil {
		return nil, err
	}
	rep.Session = s.Report()
	if !s.Accepted() {
		s.Finish()
		rep.Session = s.Report()
		rep.Refused = rep.Accept.Why
		return rep, nil
	}
	rep.Child.Started = true
	if before != nil {
		if err := before(rep); err != nil {
			s.Finish()
			return nil, err
		}
	}
	err = unix.Exec(path, args, env)
	rep.Child.Started = false
	rep.ExecErrno, _ = execErrno(err)
	rep.ExecError = innermost(err)
	return rep, nil
}

// MarshalJSON leaves out what nobody measured for a command that replaced
// corepin: its wall time, CPU time, memory and end, and where corepin's
// other threads were kept (they ended with the exec).
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report // without this method
	if r.Start != StartReplace {
		return json.Marshal(plain(r))
	}
	type replacedChild struct {
		PID     int  `json:"pid"`
		Started bool `json:"started"`
	}
	return json.Marshal(struct {
		plain
		Child  replacedChild          `json:"child"`
		Parent *evidence.ParentReport `json:"parent,omitempty"`
	}{plain: plain(r), Child: replacedChild{r.Child.PID, r.Child.Started}})
}
