package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestInputsThatWouldBlock: a FIFO named as the suite file, or found as a
// folder's run.json, is refused at once with exit 2, not waited on (the
// open of a FIFO without a writer waited in the kernel, deaf to Ctrl-C).
// A command that hangs is ended by the test's own bound, and fails it.
func TestInputsThatWouldBlock(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.toml")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	folder, other := filepath.Join(dir, "crashed"), filepath.Join(dir, "other")
	for _, f := range []string{folder, other} {
		os.Mkdir(f, 0o755)
		if err := unix.Mkfifo(filepath.Join(f, "run.json"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"run", fifo},
		{"report", folder},
		{"compare", folder, other}, // one folder twice is refused before it is read
		{"merge", "--out", filepath.Join(dir, "m.html"), folder},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := corepinProcess(t, args...)
		cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
		cmd.Env = append(os.Environ(), "COREPIN_AS_CLI=1")
		out, _ := cmd.CombinedOutput()
		cancel()
		if code := cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(string(out), "not a regular file") {
			t.Errorf("corepin %s: exit %d, want %d at once\n%s", strings.Join(args, " "), code, exitUsage, out)
		}
	}
}
