package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTelemetryCSV(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	out, errOut, code := corepin(t, "telemetry", "--interval", "50ms", "--duration", "300ms", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "t_s,cpu,util_pct,freq_mhz,freq_source" || len(lines) < 1+runtime.NumCPU() {
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
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the handler is in place within milliseconds; the margin is for slow machines
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("after Ctrl-C: %v, want exit status 130", err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(string(data), "\n"); rows < 3 {
		t.Errorf("only %d lines written after Ctrl-C:\n%s", rows, data)
	}
}
