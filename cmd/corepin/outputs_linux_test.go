package main

// A full disk, for real: a 64 KiB tmpfs mounted for the test (which needs
// root, or CAP_SYS_ADMIN), filled until a write gives ENOSPC.

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// smallDisk mounts a 64 KiB tmpfs on a new temporary folder, unmounted at
// the test's end, and returns the folder. It skips where no tmpfs can be
// mounted.
func smallDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=64k,mode=0755"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// fillCommand is a shell line that fills dir until the disk is full.
func fillCommand(dir string) string {
	return "cat /dev/zero > " + filepath.Join(dir, "fill") + " 2>/dev/null"
}

// fill fills dir's disk until a write gives ENOSPC.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v", dir, err)
			}
			return
		}
	}
}

// keptFile finds the file a message says what could not be written was
// kept in.
var keptFile = regexp.MustCompile(`is kept in (\S+) instead`)

// TestExecReportOnAFullDisk: the disk fills up while the command runs. The
// command's exit status is still corepin's, the report's failure is said
// with its errno, and the report is kept in $TMPDIR, or said lost when
// $TMPDIR is full too.
func TestExecReportOnAFullDisk(t *testing.T) {
	requireExec(t)
	disk := smallDisk(t)
	report := filepath.Join(disk, "r.json")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	_, errOut, code := corepin(t, "exec", "-q", "--report", report, "--", "sh", "-c", fillCommand(disk)+"; exit 3")
	if code != 3 {
		t.Fatalf("exit %d, want the command's 3:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "the report could not be written") || !strings.Contains(errOut, "no space left on device") {
		t.Errorf("stderr does not say the report could not be written, and why:\n%s", errOut)
	}
	m := keptFile.FindStringSubmatch(errOut)
	if m == nil || filepath.Dir(m[1]) != tmp {
		t.Fatalf("stderr does not name the report kept in %s:\n%s", tmp, errOut)
	}
	if rep := readReport(t, m[1]); rep.Child.ExitCode == nil || *rep.Child.ExitCode != 3 {
		t.Errorf("the kept report says the command exited %v, want 3", rep.Child.ExitCode)
	}
	if _, err := os.Stat(report); err == nil {
		t.Errorf("a report was left on the full disk")
	}

	// $TMPDIR on the full disk too: nowhere to keep it, and the exit
	// status is still the command's.
	os.Remove(filepath.Join(disk, "fill"))
	t.Setenv("TMPDIR", disk)
	_, errOut, code = corepin(t, "exec", "-q", "--report", report, "--", "sh", "-c", fillCommand(disk)+"; exit 4")
	if code != 4 || !strings.Contains(errOut, "could not be kept in "+disk+" either") {
		t.Errorf("exit %d, want the command's 4, and stderr saying the report is lost:\n%s", code, errOut)
	}
}

// TestExecReportFullDiskCheckedFirst: a disk that is full before the
// command starts is found before it runs.
func TestExecReportFullDiskCheckedFirst(t *testing.T) {
	requireExec(t)
	disk := smallDisk(t)
	fill(t, disk)
	marker := filepath.Join(t.TempDir(), "ran")
	_, errOut, code := corepin(t, "exec", "-q", "--report", filepath.Join(disk, "r.json"), "--", "touch", marker)
	if _, err := os.Stat(marker); err == nil || code != exitUsage || !strings.Contains(errOut, "no space left on device") {
		t.Errorf("exit %d (%q); the command ran: %v", code, errOut, err == nil)
	}
}

// TestTelemetryOutOnAFullDisk: the disk fills up during a capture; the
// samples are kept in $TMPDIR and named, and the exit status says the
// output failed.
func TestTelemetryOutOnAFullDisk(t *testing.T) {
	disk := smallDisk(t)
	tmp := t.TempDir()
	file := filepath.Join(disk, "cpu.csv")
	cmd := corepinProcess(t, "telemetry", "--interval", "50ms", "--format", "csv", "--out", file)
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The line is printed once the sampler runs, after the output's check.
	r := bufio.NewReader(stderr)
	line, err := r.ReadString('\n')
	if !strings.Contains(line, "until Ctrl-C") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no readiness line: %q, %v", line, err)
	}
	fill(t, disk)
	cmd.Process.Signal(syscall.SIGINT)
	rest, _ := r.ReadString(0)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitFailure {
		t.Errorf("exit %d, want %d: the output was not written where asked", code, exitFailure)
	}
	if !strings.Contains(rest, "no space left on device") {
		t.Errorf("stderr does not say why:\n%s", rest)
	}
	m := keptFile.FindStringSubmatch(rest)
	if m == nil || filepath.Dir(m[1]) != tmp {
		t.Fatalf("stderr does not name where the samples are kept:\n%s", rest)
	}
	data, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); lines[0] != "t_s,cpu,util_pct,freq_mhz,freq_source" || len(lines) < 1+onlineCPUs(t) {
		t.Errorf("the kept samples:\n%s", data)
	}
	if _, err := os.Stat(file); err == nil {
		t.Errorf("a file was left on the full disk")
	}
}

// TestTelemetryKeptOnStdout: with $TMPDIR full too, the samples are
// printed on standard output.
func TestTelemetryKeptOnStdout(t *testing.T) {
	disk := smallDisk(t)
	file := filepath.Join(disk, "cpu.csv")
	cmd := corepinProcess(t, "telemetry", "--interval", "50ms", "--format", "json", "--out", file)
	cmd.Env = append(cmd.Env, "TMPDIR="+disk)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stderr)
	if line, err := r.ReadString('\n'); !strings.Contains(line, "until Ctrl-C") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no readiness line: %q, %v", line, err)
	}
	fill(t, disk)
	cmd.Process.Signal(syscall.SIGINT)
	var series struct {
		Samples []json.RawMessage `json:"samples"`
	}
	decodeErr := json.NewDecoder(stdout).Decode(&series)
	rest, _ := r.ReadString(0)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitFailure || !strings.Contains(rest, "printed on standard output instead") {
		t.Errorf("exit %d, stderr:\n%s", code, rest)
	}
	if decodeErr != nil || len(series.Samples) == 0 {
		t.Errorf("standard output holds no samples: %v", decodeErr)
	}
}

// TestExperimentFullDiskCheckedFirst: an experiment whose --out is on a
// full disk is refused before it runs, not after its minutes of work.
func TestExperimentFullDiskCheckedFirst(t *testing.T) {
	disk := smallDisk(t)
	fill(t, disk)
	for _, args := range [][]string{
		{"experiment", "qos", "--quick", "--no-load", "--out", filepath.Join(disk, "qos")},
		{"experiment", "partition", "--quick", "--out", filepath.Join(disk, "partition")},
	} {
		out, errOut, code := corepin(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "--out") || !strings.Contains(errOut, "no space left on device") {
			t.Errorf("corepin %s: exit %d, printed %q, stderr %q; want it refused before any work", strings.Join(args, " "), code, out, errOut)
		}
	}
}

// TestOutputToAFIFOIsWrittenInPlace: a telemetry --out or an exec
// --report that is not a regular file, reached through a symlink as
// /dev/stdout is, is written into, never replaced by a rename (root's
// exec --report /dev/stdout once put a regular file in its place).
func TestOutputToAFIFOIsWrittenInPlace(t *testing.T) {
	// Not parallel: an exec run in the test process moves its threads off
	// the target for the run, and a corepin process a parallel test starts
	// meanwhile would inherit that mask and choose its CPUs by it.
	cpu := requireExec(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"telemetry", "--interval", "50ms", "--duration", "200ms", "--format", "csv", "--out"}, "t_s,cpu,"},
		{[]string{"exec", "-q", "--cpu", strconv.Itoa(cpu), "--", "true", "--report"}, "{"},
	} {
		t.Run(tt.args[0], func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo")
			if err := unix.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("cannot make a FIFO: %v", err)
			}
			link := filepath.Join(dir, "stdout")
			if err := os.Symlink(fifo, link); err != nil {
				t.Fatal(err)
			}
			got := make(chan string, 1)
			go func() {
				data, _ := os.ReadFile(fifo)
				got <- string(data)
			}()
			args := append(append([]string{}, tt.args...), link)
			if tt.args[0] == "exec" { // --report before the command
				args = []string{"exec", "-q", "--cpu", strconv.Itoa(cpu), "--report", link, "--", "true"}
			}
			_, errOut, code := corepin(t, args...)
			// A writer of nothing, so that the reader ends even when
			// corepin never opened the FIFO.
			if f, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			out := <-got
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the symlink was replaced: %v, %v", st.Mode(), err)
			}
			if !strings.HasPrefix(out, tt.want) {
				t.Errorf("the FIFO's reader got %q", out)
			}
		})
	}
}
