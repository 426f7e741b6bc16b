package interrupt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// With COREPIN_INTERRUPT_HELPER set, the test binary sends itself SIGINT
// before Catch or Release, as a signal in corepin's first milliseconds
// would come, says it is still running, and then:
//
//	catch       Catch, and print the signal the catcher holds
//	catch-term  the same with SIGTERM, the other signal held from init
//	release     Release, which must end the process by that SIGINT
//	hang-up     Catch, then SIGHUP and SIGINT: print the signal held
//
// Without it, the test binary gives the signals their default dispositions
// back first, as corepin's helper processes do, so that Ctrl-C ends it.
func TestMain(m *testing.M) {
	switch os.Getenv("COREPIN_INTERRUPT_HELPER") {
	case "":
		Release()
		UnignoreHangUp()
		os.Exit(m.Run())
	case "catch", "catch-term":
		if os.Getenv("COREPIN_INTERRUPT_HELPER") == "catch-term" {
			raise(syscall.SIGTERM)
		} else {
			raise(syscall.SIGINT)
		}
		fmt.Println("raised")
		c := Catch()
		select {
		case <-c.Context().Done():
			fmt.Printf("caught %v, exit code %d\n", c.Signal(), c.ExitCode())
		case <-time.After(10 * time.Second):
			fmt.Println("the signal from before Catch never reached the catcher")
		}
		os.Exit(0)
	case "release":
		raise(syscall.SIGINT)
		fmt.Println("raised")
		Release()
		fmt.Println("still running after Release")
		os.Exit(0)
	case "quit":
		c := Catch()
		raise(syscall.SIGQUIT)
		<-c.Context().Done()
		fmt.Printf("caught %v, exit code %d\n", c.Signal(), c.ExitCode())
		os.Exit(0)
	case "hang-up":
		c := Catch()
		raise(syscall.SIGHUP)
		raise(syscall.SIGINT)
		<-c.Context().Done()
		fmt.Printf("first %v\n", c.Signal())
		os.Exit(0)
	}
}

// raise sends sig to the calling thread, where it acts at once.
func raise(sig syscall.Signal) {
	runtime.LockOSThread()
	raiseHere(sig)
	runtime.UnlockOSThread()
}

func helper(t *testing.T, mode string, argv ...string) (*exec.Cmd, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	if len(argv) > 0 {
		cmd = exec.CommandContext(ctx, argv[0], append(argv[1:], exe)...)
	}
	cmd.Env = append(os.Environ(), "COREPIN_INTERRUPT_HELPER="+mode)
	out, _ := cmd.Output()
	return cmd, string(out)
}

// A signal that comes before Catch is the catcher's first signal.
func TestCatchKeepsASignalFromBeforeIt(t *testing.T) {
	cmd, out := helper(t, "catch")
	if !cmd.ProcessState.Success() || out != "raised\ncaught interrupt, exit code 130\n" {
		t.Errorf("helper: %v, printed %q", cmd.ProcessState, out)
	}
	cmd, out = helper(t, "catch-term")
	if !cmd.ProcessState.Success() || out != "raised\ncaught terminated, exit code 143\n" {
		t.Errorf("helper, SIGTERM: %v, printed %q", cmd.ProcessState, out)
	}
}

// A process started with SIGHUP ignored, as under nohup, keeps ignoring
// it; started without, a hang-up is its first signal.
func TestHangUpIgnoredAtStartStaysIgnored(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	cmd, out := helper(t, "hang-up", "sh", "-c", `trap '' HUP; exec "$0"`)
	if !cmd.ProcessState.Success() || out != "first interrupt\n" {
		t.Errorf("started with SIGHUP ignored: %v, printed %q; want SIGINT first", cmd.ProcessState, out)
	}
	cmd, out = helper(t, "hang-up")
	if !cmd.ProcessState.Success() || out != "first hangup\n" {
		t.Errorf("started with SIGHUP at its default: %v, printed %q; want SIGHUP first", cmd.ProcessState, out)
	}
}

// A process that wants the default dispositions dies of a signal that came
// before Release, as if it had never been caught, and only at Release: the
// early catching held it until then.
func TestReleaseActsOnASignalFromBeforeIt(t *testing.T) {
	cmd, out := helper(t, "release")
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGINT || !strings.HasPrefix(out, "raised\n") || strings.Contains(out, "still running") {
		t.Errorf("helper: %v, printed %q; want it ended by SIGINT at Release", cmd.ProcessState, out)
	}
}

// TestQuitEndsLikeTerm: SIGQUIT is caught as an ending signal (exit
// 128+3), with no stack dump; with GOTRACEBACK set it keeps the runtime's
// dump and exit 2.
func TestQuitEndsLikeTerm(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "COREPIN_INTERRUPT_HELPER=quit", "GOTRACEBACK=")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "caught quit, exit code 131") || strings.Contains(string(out), "goroutine ") {
		t.Errorf("SIGQUIT: %v\n%s", err, out)
	}
	cmd = exec.Command(exe)
	cmd.Env = append(os.Environ(), "COREPIN_INTERRUPT_HELPER=quit", "GOTRACEBACK=all")
	out, _ = cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "goroutine ") {
		t.Errorf("SIGQUIT with GOTRACEBACK=all: exit %d, want the runtime's dump and 2\n%s", code, out)
	}
}
