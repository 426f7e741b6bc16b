package launch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/session"
)

func init() { treeHelpers["ttyreader"] = ttyReader }

// ttyReader runs, on its terminal, a command that reads the terminal, and
// prints how it ended.
func ttyReader() int {
	rep, err := Run(context.Background(), Config{
		Request: session.Request{CPU: mustTarget(), Ladder: session.AffinityOnly()}, Args: []string{"head", "-c", "2"},
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
	})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Printf("\nexit=%d\n", rep.ExitCode())
	return 0
}

// openPTY opens a pseudo-terminal's two ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	// Opened non-blocking, the master end goes through Go's poller, so
	// that a read can have a deadline.
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skip("no pseudo-terminals:", err)
	}
	m := os.NewFile(uintptr(fd), "/dev/ptmx")
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// A command in a process group of its own still reads corepin's terminal:
// it is given the terminal's foreground, not stopped at its first read.
func TestCommandReadsTheTerminal(t *testing.T) {
	needsTwoCPUs(t)
	master, slave := openPTY(t)
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "COREPIN_LAUNCH_HELPER=ttyreader")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	master.Write([]byte("hi\n")) // a line: the terminal is in canonical mode
	// A command stopped in the background would never let the run end.
	master.SetReadDeadline(time.Now().Add(20 * time.Second))
	var out bytes.Buffer
	buf := make([]byte, 256)
	for !strings.Contains(out.String(), "exit=0") {
		n, err := master.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			t.Fatalf("the command did not read its terminal (stopped in the background?): %v; the terminal shows %q", err, out.String())
		}
	}
}
