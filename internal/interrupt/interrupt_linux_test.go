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
//	catch    Catch, and print the signal the catcher holds
//	release  Release, which must end the process by that SIGINT
//
// Without it, the test binary gives the signals their default dispositions
// back first, as corepin's helper processes do, so that Ctrl-C ends it.
func TestMain(m *testing.M) {
	switch os.Getenv("COREPIN_INTERRUPT_HELPER") {
	case "":
		Release()
		os.Exit(m.Run())
	case "catch":
		raise()
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
		raise()
		fmt.Println("raised")
		Release()
		fmt.Println("still running after Release")
		os.Exit(0)
	}
}

// raise sends SIGINT to the calling thread, where it acts at once.
func raise() {
	runtime.LockOSThread()
	raiseHere(syscall.SIGINT)
	runtime.UnlockOSThread()
}

func helper(t *testing.T, mode string) (*exec.Cmd, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
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
