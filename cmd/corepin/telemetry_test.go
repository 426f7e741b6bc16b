package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"corepin.dev/corepin/topology"
)

func TestTelemetryCSV(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	out, errOut, code := corepin(t, "telemetry", "--interval", "50ms", "--duration", "300ms", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "t_s,cpu,util_pct,freq_mhz,freq_source" || len(lines) < 1+onlineCPUs(t) {
		t.Errorf("CSV:\n%s", out)
	}
}

func TestTelemetryBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"telemetry", "--interval", "1ms"},
		{"telemetry", "--cpus", "3-1"},
		{"telemetry", "--format", "xml"},
	} {
		if _, _, code := corepin(t, args...); code != exitUsage {
			t.Errorf("corepin %s: exit %d, want %d", strings.Join(args, " "), code, exitUsage)
		}
	}
}

// TestTelemetryCtrlC interrupts a capture: it must end cleanly, with the
// samples taken so far written, and exit 130 as every interrupted command.
func TestTelemetryCtrlC(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cpu.csv")
	cmd := exec.Command(exe, "telemetry", "--interval", "50ms", "--format", "csv", "--out", file)
	cmd.Env = append(os.Environ(), "COREPIN_AS_CLI=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The line is printed once the sampler runs and Ctrl-C is handled.
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if !strings.Contains(line, "until Ctrl-C") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no readiness line: %q, %v", line, err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("after Ctrl-C: %v, want exit status 130", err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The header, then at least the sample taken at the end for every CPU.
	if rows := strings.Count(string(data), "\n"); rows < 1+onlineCPUs(t) {
		t.Errorf("only %d lines written after Ctrl-C:\n%s", rows, data)
	}
}

// onlineCPUs is how many CPUs corepin reads as online here.
func onlineCPUs(t *testing.T) int {
	t.Helper()
	topo, err := topology.ReadForSelection("/")
	if err != nil {
		t.Fatal(err)
	}
	return topo.Online.Len()
}
