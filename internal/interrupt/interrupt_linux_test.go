package interrupt

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

// With COREPIN_INTERRUPT_HELPER set, the test binary sends itself SIGINT
// before Catch or Release, as a signal in corepin's first milliseconds
// would come, and then:
//
//	catch    Catch, and print the signal the catcher holds
//	release  Release, which must end the process by that SIGINT
func TestMain(m *testing.M) {
	switch os.Getenv("COREPIN_INTERRUPT_HELPER") {
	case "":
		os.Exit(m.Run())
	case "catch":
		raise()
		c := Catch()
		<-c.Context().Done()
		fmt.Printf("caught %v, exit code %d\n", c.Signal(), c.ExitCode())
		os.Exit(0)
	case "release":
		raise()
		Release()
		fmt.Println("still running after Release")
		os.Exit(0)
	}
}

// raise sends SIGINT to the calling thread, where it acts at once.
func raise() {
	runtime.LockOSThread()
	syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), syscall.SIGINT)
	runtime.UnlockOSThread()
}

func helper(t *testing.T, mode string) (*exec.Cmd, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "COREPIN_INTERRUPT_HELPER="+mode)
	out, _ := cmd.Output()
	return cmd, string(out)
}

// A signal that comes before Catch is the catcher's first signal.
func TestCatchKeepsASignalFromBeforeIt(t *testing.T) {
	cmd, out := helper(t, "catch")
	if !cmd.ProcessState.Success() || out != "caught interrupt, exit code 130\n" {
		t.Errorf("helper: %v, printed %q", cmd.ProcessState, out)
	}
}

// A process that wants the default dispositions dies of a signal that came
// before Release, as if it had never been caught.
func TestReleaseActsOnASignalFromBeforeIt(t *testing.T) {
	cmd, out := helper(t, "release")
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("helper: %v, printed %q; want it ended by SIGINT", cmd.ProcessState, out)
	}
}
