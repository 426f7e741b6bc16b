package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"corepin.dev/corepin/cmd/corepin/internal/system"
	"corepin.dev/corepin/results/evidence"
)

const acpiRoot = "internal/system/testdata/machines/acpi-cpufreq"

const governor = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor"

// The fault trial's attack: a journal that nobody wrote (mode 0666), given
// to root's reset, named a file beside the root. It is refused, and
// nothing is written.
func TestSystemResetRefusesAnotherUsersJournal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a file of nobody's")
	}
	root := copyMachine(t, acpiRoot)
	victim := filepath.Join(filepath.Dir(root), "victim")
	os.WriteFile(victim, []byte("victim\n"), 0o644)
	j := system.Journal{Schema: system.JournalSchema, Layers: []system.Layer{{Owner: system.Owner{PID: 1 << 30}, Command: "attack",
		Entries: []evidence.Entry{{Op: evidence.OpWrite, Path: "sys/../../victim", Old: "attacker\n"}, {Op: evidence.OpWrite, Path: governor, Old: "attacker\n"}}}}}
	data, _ := json.Marshal(j)
	journal := filepath.Join(t.TempDir(), "j.json")
	os.WriteFile(journal, data, 0o666)
	os.Chmod(journal, 0o666)
	os.Chown(journal, 65534, 65534)
	_, errOut, code := corepin(t, "system", "reset", "--root", root, "--journal", journal)
	if code != 1 || !strings.Contains(errOut, "untrusted journal") || !strings.Contains(errOut, "belongs to uid 65534") {
		t.Errorf("reset: exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(victim); string(got) != "victim\n" {
		t.Errorf("the victim was overwritten: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, governor)); string(got) != "ondemand\n" {
		t.Errorf("the governor was overwritten: %q", got)
	}
}

// holdLock starts flock(1) on path running `sh -c 'echo ready; exec
// cat'` and returns its PID once it holds the lock; the lock is freed when
// the test ends (cat's input closes and flock is killed by its PID).
func holdLock(t *testing.T, path string) int {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("flock", path, "sh", "-c", "echo ready; exec cat")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Skipf("needs flock (util-linux): %v", err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the lock holder said %q (%v)", line, err)
	}
	return cmd.Process.Pid
}

func TestSystemResetGivesUpOnAHeldLock(t *testing.T) {
	root := copyMachine(t, acpiRoot)
	journal := filepath.Join(t.TempDir(), "system.json")
	pid := holdLock(t, journal+".lock")
	_, errOut, code := corepin(t, "system", "reset", "--root", root, "--journal", journal, "--lock-timeout", "50ms")
	if code != 1 || !strings.Contains(errOut, "held by pid "+strconv.Itoa(pid)+" (flock) and was not freed in 50ms") {
		t.Errorf("reset with the lock held: exit %d: %s", code, errOut)
	}
}

// A signal ends the wait for the lock at once, whatever the timeout, with
// 128+N; a tune that was waiting changes nothing.
func TestSystemSignalEndsTheLockWait(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"system", "reset"}},
		{syscall.SIGTERM, []string{"system", "tune", "--cpu", "1", "--irqs"}},
		{syscall.SIGHUP, []string{"system", "tune", "--cpu", "1"}},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			root := copyMachine(t, intelRoot)
			journal := filepath.Join(t.TempDir(), "system.json")
			pid := holdLock(t, journal+".lock")
			before, _ := exec.Command("find", root, "-type", "f", "-exec", "md5sum", "{}", "+").Output()
			// An hour: only the signal can end the wait before the test's
			// own timeout.
			cmd := exec.Command(os.Args[0], append(tc.args, "--root", root, "--journal", journal, "--lock-timeout", "1h")...)
			cmd.Env = append(os.Environ(), "COREPIN_AS_CLI=1")
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(stderr)
			var said strings.Builder
			for !strings.Contains(said.String(), "waiting for the journal's lock") {
				line, err := r.ReadString('\n')
				said.WriteString(line)
				if err != nil {
					cmd.Wait()
					t.Fatalf("corepin ended without waiting for the lock: %s", said.String())
				}
			}
			if want := "held by pid " + strconv.Itoa(pid); !strings.Contains(said.String(), want) {
				t.Errorf("the wait does not name the holder (%s): %s", want, said.String())
			}
			cmd.Process.Signal(tc.sig)
			rest, _ := bufio.NewReader(r).ReadString(0)
			said.WriteString(rest)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != 128+int(tc.sig) || !strings.Contains(said.String(), "interrupted") {
				t.Errorf("after %v: exit %d, want %d: %s", tc.sig, code, 128+int(tc.sig), said.String())
			}
			after, _ := exec.Command("find", root, "-type", "f", "-exec", "md5sum", "{}", "+").Output()
			if string(before) != string(after) {
				t.Errorf("the tree changed")
			}
		})
	}
}

// The lock's holder is named even when the process that took it has
// ended and another process that has the same open lock file holds it on
// (a child that inherited it): /proc/locks still names the one that
// ended. Here flock(1) takes the lock on a file it shares with a sleep,
// and exits.
func TestSystemLockHolderInherited(t *testing.T) {
	root := copyMachine(t, acpiRoot)
	journal := filepath.Join(t.TempDir(), "system.json")
	f, err := os.OpenFile(journal+".lock", os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("sleep", "600")
	holder.ExtraFiles = []*os.File{f}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	taker := exec.Command("flock", "-x", "3")
	taker.ExtraFiles = []*os.File{f}
	if err := taker.Run(); err != nil {
		t.Skipf("needs flock (util-linux): %v", err)
	}
	f.Close()
	_, errOut, code := corepin(t, "system", "reset", "--root", root, "--journal", journal, "--lock-timeout", "50ms")
	want := "held by pid " + strconv.Itoa(holder.Process.Pid) + " (sleep), which inherited it from pid " + strconv.Itoa(taker.Process.Pid) + ", now ended"
	if code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("reset with the lock held by an inheritor: exit %d: %s\nwant %q", code, errOut, want)
	}
}

// TestSystemTuneKilledHalfwayIsPutBack: corepin system tune killed with
// SIGKILL in the middle of its writes leaves nothing changed: its guard
// puts back what it had written. The tune is held halfway by a FIFO in
// place of the last file it writes (IRQ 24's affinity): the test feeds
// each read of it and leaves the write waiting; once the journal records
// that last entry, the FIFO becomes the file it stood for again and
// corepin is killed.
func TestSystemTuneKilledHalfwayIsPutBack(t *testing.T) {
	root := copyMachine(t, acpiRoot)
	irq := filepath.Join(root, "proc/irq/24/smp_affinity_list")
	before, _ := exec.Command("find", root, "-type", "f", "-exec", "md5sum", "{}", "+").Output()
	os.Remove(irq)
	if err := syscall.Mkfifo(irq, 0o644); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(t.TempDir(), "system.json")
	cmd := corepinProcess(t, "system", "tune", "--cpu", "1", "--irqs", "--root", root, "--journal", journal)
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	said := func() string { data, _ := os.ReadFile(out.Name()); return string(data) }
	// reading says whether corepin has the FIFO open.
	reading := func() bool {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", cmd.Process.Pid))
		for _, fd := range fds {
			if l, _ := os.Readlink(fd); l == irq {
				return true
			}
		}
		return false
	}
	fed := false
	waitFor(t, "the journal to record IRQ 24", func() bool {
		if data, _ := os.ReadFile(journal); strings.Contains(string(data), "proc/irq/24/smp_affinity_list") {
			return true
		}
		if fed && reading() {
			return false // the last read has not ended yet
		}
		fed = false
		if w, err := os.OpenFile(irq, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.WriteString("1\n") // a reader is there: what the file held
			w.Close()
			fed = true
		}
		return cmd.ProcessState != nil
	})
	guard := guardOf(t, cmd.Process.Pid)
	os.Remove(irq)
	os.WriteFile(irq, []byte("1\n"), 0o644)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	waitFor(t, "the guard to end", func() bool {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", guard))
		return err != nil || strings.Contains(string(data), ") Z ")
	})
	after, _ := exec.Command("find", root, "-type", "f", "-exec", "md5sum", "{}", "+").Output()
	if string(before) != string(after) {
		t.Errorf("the tree was left tuned after the kill:\n%s", said())
	}
	if !strings.Contains(said(), "its guard put the machine's tuning back") {
		t.Errorf("the guard did not say what it did:\n%s", said())
	}
}
