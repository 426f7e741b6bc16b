package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// charDevice makes a character device of /dev/null's numbers: what a
// rename over /dev/null would have replaced with a regular file.
func charDevice(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "null")
	if err := unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("cannot make a character device (needs root): %v", err)
	}
	return path
}

// stillCharDevice fails unless path is still a character device.
func stillCharDevice(t *testing.T, path, after string) {
	t.Helper()
	if st, err := os.Lstat(path); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("after %s the character device is %v (%v)", after, st.Mode(), err)
	}
}

// TestOutputsOntoACharacterDevice: every flag that names an output file
// writes through a character device (a copy of /dev/null) and leaves it
// one; a flag that names a folder refuses it with exit 2.
func TestOutputsOntoACharacterDevice(t *testing.T) {
	null := charDevice(t)
	folders := []string{"../../results/testdata/merge/cpu0", "../../results/testdata/merge/cpu1"}
	for _, args := range [][]string{
		{"report", "--out", null, folders[0]},
		{"compare", "--html", null, folders[0], folders[1]},
		{"merge", "--out", null, folders[0], folders[1]},
		{"telemetry", "--interval", "50ms", "--duration", "120ms", "--format", "csv", "--out", null, "--thermal", null},
	} {
		if _, errOut, code := corepin(t, args...); code != 0 {
			t.Errorf("corepin %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
		}
		stillCharDevice(t, null, args[0])
	}
	if _, err := os.Stat(filepath.Join(folders[0], "report.html")); err == nil {
		t.Errorf("report --out wrote into the folder too")
	}
	t.Run("exec", func(t *testing.T) {
		requireExec(t)
		if _, errOut, code := corepin(t, "exec", "-q", "--report", null, "--", "true"); code != 0 {
			t.Errorf("exec --report: exit %d\n%s", code, errOut)
		}
		stillCharDevice(t, null, "exec --report")
	})
	for _, args := range [][]string{
		{"run", "--quick", "--only", "fib", "--runs", "1", "--warmup", "0", "--out", null},
		{"experiment", "partition", "--quick", "--out", null},
	} {
		if _, errOut, code := corepin(t, args...); code != exitUsage {
			t.Errorf("corepin %s: exit %d, want %d: a folder cannot be made there\n%s", strings.Join(args, " "), code, exitUsage, errOut)
		}
		stillCharDevice(t, null, args[0])
	}
}

// TestOutputPlacesRefused: a FIFO nobody reads, a place the kernel
// refuses and a full disk are the command line's fault: exit 2, at once,
// and nothing is left where the output was asked for.
func TestOutputPlacesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	folder := "../../results/testdata/merge/cpu0"
	places := []string{fifo, "/proc/corepin-test/page.html", filepath.Join(dir, "missing", "page.html")}
	if os.Geteuid() == 0 {
		disk := smallDisk(t)
		fill(t, disk)
		places = append(places, filepath.Join(disk, "page.html"))
	}
	for _, place := range places {
		for _, args := range [][]string{{"report", "--out", place, folder}, {"merge", "--out", place, folder}, {"compare", "--html", place, folder, "../../results/testdata/merge/cpu1"}} {
			if _, errOut, code := corepin(t, args...); code != exitUsage || !strings.Contains(errOut, "cannot write") {
				t.Errorf("corepin %s: exit %d, want %d\n%s", strings.Join(args, " "), code, exitUsage, errOut)
			}
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", st.Mode(), err)
	}
}
