// Package launch runs a command on the chosen CPU with verified scheduling.
//
// Go cannot run code between fork and exec, and os/exec has no field for
// affinity or priority. There are two ways around that, and Run picks one:
//
//   - Fork from a prepared thread (the default). A locked goroutine runs a
//     session on its own thread (affinity, the ladder of attributes), reads
//     it back, and starts the command from that thread: Go forks from the
//     calling thread, fork copies the thread's mask, policy, nice and
//     uclamp, and exec keeps them. The thread is then put back as it was.
//   - Re-execute corepin as a small launcher (Main), for what fork does not
//     copy, such as a HarmonyOS QoS level, or when asked (Config.Launcher).
//     The launcher locks its main thread, runs the session on it, sends the
//     report to the parent over an inherited pipe, marks the pipe
//     close-on-exec and execs the command. As in Go's own fork/exec,
//     end-of-file on the pipe with no error message means the exec
//     happened.
//
// Either way the parent then watches the command's threads, keeps its own
// threads off the target, forwards signals and reports the child's
// resource use. The report's Start field says which way was taken.
package launch

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/internal/kacct"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

const (
	specEnv  = "COREPIN_LAUNCH_SPEC"
	reportFD = 3 // the first of exec.Cmd.ExtraFiles
)

// Exit codes of the launcher, as shells use them.
const (
	ExitRefused = 125 // the acceptance rule refused; the command never started
	// ExitNoLongerHeld: the command ran, but the acceptance rule stopped
	// holding during the run (every target CPU went offline); the
	// command's own status is in the report.
	ExitNoLongerHeld  = 124
	ExitNotExecutable = 126
	ExitNotFound      = 127
)

// spec is what the launcher is asked to do: the request, whole, and the
// command.
type spec struct {
	Request session.Request `json:"request"`
	Args    []string        `json:"args"` // the command and its arguments
}

// message is one JSON value the launcher writes on the report pipe.
type message struct {
	Report    *evidence.Session `json:"report,omitempty"`
	Refused   string            `json:"refused,omitempty"`
	ExecErrno evidence.Errno    `json:"exec_errno,omitempty"`
	ExecError string            `json:"exec_error,omitempty"`
	Failed    string            `json:"failed,omitempty"`
	// ExecAtNS is CLOCK_MONOTONIC just before the exec of the command:
	// the command's wall time starts there, not at the launcher's start.
	ExecAtNS int64 `json:"exec_at_ns,omitempty"`
	// ExecElapsedNS is the launcher's age at that moment by the kernel's
	// taskstats clock; 0 where corepin may not ask for it.
	ExecElapsedNS int64 `json:"exec_elapsed_ns,omitempty"`
}

// Main is the launcher, which corepin runs when its first argument is Arg.
// A program that embeds the launcher calls Dispatch first thing in main:
//
//	func main() {
//		launch.Dispatch(os.Args)
//		...
//	}
//
// and keeps its main goroutine on the process's main thread from its
// initialisation on, as corepin's main package does with
// runtime.LockOSThread in an init function: a goroutine locked only here
// may have moved to another thread by then, and an execve from a thread
// that is not the main one makes the session's thread another than the
// command's. Main refuses to run on any other thread.
//
// Main never returns: it execs the command or exits.
func Main() {
	runtime.LockOSThread() // the session's thread is the one that execs
	pipe := os.NewFile(reportFD, "corepin-report")
	if sched.Gettid() != os.Getpid() {
		json.NewEncoder(pipe).Encode(message{Failed: "the launcher runs on another thread than the process's main one (its program must lock the main goroutine in an init function)"})
		os.Exit(1)
	}
	os.Exit(launch(pipe))
}

func launch(pipe *os.File) int {
	send := func(m message) { json.NewEncoder(pipe).Encode(m) }
	var spec spec
	if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &spec); err != nil {
		send(message{Failed: "reading the launch spec: " + err.Error()})
		return 1
	}
	os.Unsetenv(specEnv)
	if len(spec.Args) == 0 {
		send(message{Failed: "no command to run"})
		return 1
	}
	s, err := session.Begin(spec.Request)
	if err != nil {
		send(message{Failed: err.Error()})
		return 1
	}
	rep := s.Report()
	if !s.Accepted() {
		s.Finish()
		send(message{Report: &rep, Refused: rep.Accept.Why})
		return ExitRefused
	}
	path, err := exec.LookPath(spec.Args[0])
	if err != nil {
		errno, code := execErrno(err)
		send(message{Report: &rep, ExecErrno: errno, ExecError: innermost(err)})
		return code
	}
	send(message{Report: &rep})
	unix.CloseOnExec(reportFD)
	elapsed, _ := kacct.OwnElapsed()
	send(message{ExecAtNS: int64(monotonic()), ExecElapsedNS: int64(elapsed)})
	err = unix.Exec(path, spec.Args, os.Environ())
	errno, code := execErrno(err)
	send(message{ExecErrno: errno, ExecError: innermost(err)})
	return code
}

// monotonic is CLOCK_MONOTONIC, which the launcher and corepin share.
func monotonic() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}

// innermost is the plainest message of an error chain ("no such file or
// directory"), with its errno name where there is one.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			break
		}
		err = next
	}
	if name := sched.ErrnoName(err); name != "" {
		return err.Error() + " (" + name + ")"
	}
	return err.Error()
}

// execErrno names why a command could not be run and the shell's exit
// code for it: 127 when it is not there, 126 when it is not executable.
func execErrno(err error) (evidence.Errno, int) {
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return errnoName(syscall.ENOENT), ExitNotFound
	case sched.ErrnoOf(err) != 0:
		return evidence.Errno(sched.ErrnoOf(err).String()), ExitNotExecutable
	case errors.Is(err, fs.ErrPermission):
		return errnoName(syscall.EACCES), ExitNotExecutable
	}
	return "", ExitNotExecutable
}

// errnoName is an errno as a report writes it.
func errnoName(e syscall.Errno) evidence.Errno { return evidence.Errno(sched.Errno(e).String()) }
