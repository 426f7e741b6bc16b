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

// With COREPIN_INTERRUPT_HELPER set, the test binary is a helper process:
//
//	none        sends itself SIGINT without Catch, which must end it
//	catch       Catch, then SIGINT: print the signal the catcher holds
//	catch-term  the same with SIGTERM
//	hang-up     Catch, then SIGHUP and SIGINT: print the first
//	quit        Catch, then SIGQUIT
//	forward     Catch, then SIGINT before Forward: print what Forward gives
//	with        Catch and With, then SIGINT at once
//
// Each one that catches but with waits for Ready before it sends a
// signal, as a signal that came after corepin's start would.
func TestMain(m *testing.M) {
	mode := os.Getenv("COREPIN_INTERRUPT_HELPER")
	if mode == "" {
		UnignoreHangUp()
		os.Exit(m.Run())
	}
	if mode == "none" {
		raise(syscall.SIGINT)
		fmt.Println("still running after SIGINT")
		os.Exit(0)
	}
	c := Catch()
	if mode == "with" {
		ctx := With(context.Background(), c)
		<-c.Ready()
		raise(syscall.SIGINT)
		<-ctx.Done()
	}
	select {
	case <-c.Ready():
	case <-time.After(10 * time.Second):
		fmt.Println("the signals were never all caught")
		os.Exit(1)
	}
	switch mode {
	case "catch":
		raise(syscall.SIGINT)
	case "catch-term":
		raise(syscall.SIGTERM)
	case "hang-up":
		raise(syscall.SIGHUP)
		raise(syscall.SIGINT)
	case "quit":
		raise(syscall.SIGQUIT)
	case "forward":
		raise(syscall.SIGINT)
		<-c.Context().Done()
		signals, stop := c.Forward()
		defer stop()
		fmt.Printf("forwarded %v\n", <-signals)
		os.Exit(0)
	}
	select {
	case <-c.Context().Done():
		fmt.Printf("caught %v, exit code %d\n", c.Signal(), c.ExitCode())
	case <-time.After(10 * time.Second):
		fmt.Println("the signal never reached the catcher")
	}
	os.Exit(0)
}

// raise sends sig to the calling thread, where it acts before the call
// returns; one sent to the process may be taken by another thread later.
func raise(sig syscall.Signal) {
	runtime.LockOSThread()
	syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), sig)
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

// Importing the package catches nothing: a process that never called
// Catch (a helper process, a test binary, a program using a library that
// imports it) dies of SIGINT's default action.
func TestNothingIsCaughtBeforeCatch(t *testing.T) {
	cmd, out := helper(t, "none")
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGINT || out != "" {
		t.Errorf("helper: %v, printed %q; want it ended by SIGINT", cmd.ProcessState, out)
	}
}

// Once Ready, SIGINT and SIGTERM are the catcher's signal and exit code.
func TestCatchHoldsTheSignal(t *testing.T) {
	cmd, out := helper(t, "catch")
	if !cmd.ProcessState.Success() || out != "caught interrupt, exit code 130\n" {
		t.Errorf("helper: %v, printed %q", cmd.ProcessState, out)
	}
	cmd, out = helper(t, "catch-term")
	if !cmd.ProcessState.Success() || out != "caught terminated, exit code 143\n" {
		t.Errorf("helper, SIGTERM: %v, printed %q", cmd.ProcessState, out)
	}
}

// Once Ready, a command that runs with With's context (and says Ctrl-C is
// handled) is never ended by a signal's default action: the signal
// cancels the context. Ten tries, as a signal sent at once would often,
// not always, come before a goroutine that enables the signals.
func TestWithIsCancelledOnceReady(t *testing.T) {
	for i := range 10 {
		cmd, out := helper(t, "with")
		if !cmd.ProcessState.Success() || out != "caught interrupt, exit code 130\n" {
			t.Fatalf("try %d: %v, printed %q; want SIGINT caught", i, cmd.ProcessState, out)
		}
	}
}

// A signal caught before Forward is the first one Forward passes on: a
// command exec starts gets the signal that came while it was starting.
func TestForwardPassesOnWhatCameBefore(t *testing.T) {
	cmd, out := helper(t, "forward")
	if !cmd.ProcessState.Success() || out != "forwarded interrupt\n" {
		t.Errorf("helper: %v, printed %q", cmd.ProcessState, out)
	}
}

// A process started with SIGHUP ignored, as under nohup, keeps ignoring
// it; started without, a hang-up is its first signal.
func TestHangUpIgnoredAtStartStaysIgnored(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	cmd, out := helper(t, "hang-up", "sh", "-c", `trap '' HUP; exec "$0"`)
	if !cmd.ProcessState.Success() || out != "caught interrupt, exit code 130\n" {
		t.Errorf("started with SIGHUP ignored: %v, printed %q; want SIGINT first", cmd.ProcessState, out)
	}
	cmd, out = helper(t, "hang-up")
	if !cmd.ProcessState.Success() || out != "caught hangup, exit code 129\n" {
		t.Errorf("started with SIGHUP at its default: %v, printed %q; want SIGHUP first", cmd.ProcessState, out)
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
