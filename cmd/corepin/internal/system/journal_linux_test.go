package system

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/results/evidence"
)

const governor = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor"

// gone is an owner that does not run: no PID reaches 2^30.
var gone = Owner{PID: 1 << 30, Start: 1}

// writeJournal writes j at path with the given owner and mode, as someone
// else could have.
func writeJournal(t *testing.T, path string, j Journal, uid int, mode os.FileMode) []byte {
	t.Helper()
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	if err := os.Chown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
	return data
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make files of other users")
	}
}

// Each journal root must not trust is refused as a whole, and nothing is
// written: neither the tree, nor a file beside it, nor the journal. The
// first case is the same journal trusted, to show that the others would
// have written.
func TestJournalRefusedWritesNothing(t *testing.T) {
	needRoot(t)
	attack := func(paths ...string) Journal {
		j := Journal{Schema: JournalSchema, Layers: []Layer{{Owner: gone, Command: "attack"}}}
		for _, p := range paths {
			j.Layers[0].Entries = append(j.Layers[0].Entries, evidence.Entry{Op: evidence.OpWrite, Path: p, Old: "attacker\n"})
		}
		return j
	}
	for _, tc := range []struct {
		name string
		// setUp writes the journal and returns the path to reset from.
		setUp func(t *testing.T, root, dir string) string
		want  error  // nil: applied
		msg   string // part of the message
	}{
		{"trusted", func(t *testing.T, root, dir string) string {
			p := filepath.Join(dir, "j.json")
			writeJournal(t, p, attack(governor), 0, 0o600)
			return p
		}, nil, ""},
		{"owned by nobody", func(t *testing.T, root, dir string) string {
			p := filepath.Join(dir, "j.json")
			writeJournal(t, p, attack(governor), 65534, 0o600)
			return p
		}, ErrUntrustedJournal, "belongs to uid 65534"},
		{"mode 0666", func(t *testing.T, root, dir string) string {
			p := filepath.Join(dir, "j.json")
			writeJournal(t, p, attack(governor), 0, 0o666)
			return p
		}, ErrUntrustedJournal, "mode 0666"},
		{"symbolic link", func(t *testing.T, root, dir string) string {
			real := filepath.Join(dir, "real.json")
			writeJournal(t, real, attack(governor), 0, 0o600)
			p := filepath.Join(dir, "j.json")
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
			return p
		}, ErrUntrustedJournal, "symbolic link"},
		{"folder a symbolic link", func(t *testing.T, root, dir string) string {
			real := filepath.Join(dir, "real")
			os.Mkdir(real, 0o755)
			writeJournal(t, filepath.Join(real, "j.json"), attack(governor), 0, 0o600)
			if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "link", "j.json")
		}, ErrUntrustedJournal, "folder"},
		{"folder others may write", func(t *testing.T, root, dir string) string {
			open := filepath.Join(dir, "open")
			os.Mkdir(open, 0o755)
			os.Chmod(open, 0o1777)
			p := filepath.Join(open, "j.json")
			writeJournal(t, p, attack(governor), 0, 0o600)
			return p
		}, ErrUntrustedJournal, "may be written by others"},
		{"entry with ../", func(t *testing.T, root, dir string) string {
			// The bad entry is the oldest, so a reset without the check
			// would first write the good one.
			p := filepath.Join(dir, "j.json")
			writeJournal(t, p, attack("sys/../../victim", governor), 0, 0o600)
			return p
		}, ErrUntrustedJournal, "leaves the machine's root"},
		{"entry outside the kernel's trees", func(t *testing.T, root, dir string) string {
			p := filepath.Join(dir, "j.json")
			writeJournal(t, p, attack("etc/passwd", governor), 0, 0o600)
			return p
		}, ErrUntrustedJournal, "outside sys/, proc/"},
		{"entry through a process's root", func(t *testing.T, root, dir string) string {
			// proc/self is the kernel's under the live root: its root link
			// leads to the machine's whole tree, the victim beside the
			// root included.
			os.RemoveAll(filepath.Join(root, "proc/self"))
			if err := os.Symlink("/proc/self", filepath.Join(root, "proc/self")); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(filepath.Dir(root), "victim")
			p := filepath.Join(dir, "j.json")
			writeJournal(t, p, attack("proc/self/root"+victim, "proc/self/cwd/x", "proc/1/fd/1", governor), 0, 0o600)
			return p
		}, ErrUntrustedJournal, "neither proc/irq, proc/sys nor a task"},
		{"another boot", func(t *testing.T, root, dir string) string {
			os.MkdirAll(filepath.Join(root, "proc/sys/kernel/random"), 0o755)
			if err := os.WriteFile(filepath.Join(root, bootPath), []byte("0b7ef3c4-now\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			j := attack(governor)
			j.BootID = "5d1e6c2a-before"
			p := filepath.Join(dir, "j.json")
			writeJournal(t, p, j, 0, 0o600)
			return p
		}, ErrOtherBoot, "made in another boot (boot ID 5d1e6c2a-before, now 0b7ef3c4-now): the machine was restarted since, there is nothing to restore; remove "},
		{"older journal without a boot", func(t *testing.T, root, dir string) string {
			j := attack(governor)
			j.Schema = journalSchema1
			p := filepath.Join(dir, "j.json")
			writeJournal(t, p, j, 0, 0o600)
			return p
		}, ErrOtherBoot, "--this-boot"},
		{"damaged", func(t *testing.T, root, dir string) string {
			p := filepath.Join(dir, "j.json")
			data := writeJournal(t, p, attack(governor), 0, 0o600)
			os.WriteFile(p, data[:len(data)/2], 0o600)
			return p
		}, ErrDamagedJournal, "restarting the machine puts back every value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := copyTree(t, "acpi-cpufreq")
			victim := filepath.Join(filepath.Dir(root), "victim")
			if err := os.WriteFile(victim, []byte("victim\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			journal := tc.setUp(t, root, dir)
			before := snapshot(t, root)
			saved, _ := os.ReadFile(journal)
			m := &Machine{Root: fsroot.Root(root), Journal: journal}
			_, err := m.Reset(t.Context())
			if tc.want == nil {
				if err != nil {
					t.Fatalf("a trusted journal: %v", err)
				}
				if got, _ := os.ReadFile(filepath.Join(root, governor)); string(got) != "attacker\n" {
					t.Fatalf("a trusted journal was not applied: the governor reads %q", got)
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("reset: %v; want %v saying %q", err, tc.want, tc.msg)
			}
			sameTree(t, before, snapshot(t, root))
			if got, _ := os.ReadFile(victim); string(got) != "victim\n" {
				t.Errorf("the file beside the root was overwritten: %q", got)
			}
			if got, _ := os.ReadFile(journal); string(got) != string(saved) {
				t.Errorf("the refused journal was rewritten")
			}
		})
	}
}

// An older journal is applied once the user says the machine has not
// restarted since, and rewritten with this boot's ID if it must stay.
func TestJournalWithoutBootAcceptedWithThisBoot(t *testing.T) {
	root := copyTree(t, "acpi-cpufreq")
	journal := filepath.Join(t.TempDir(), "j.json")
	j := Journal{Schema: journalSchema1, Layers: []Layer{{Owner: gone, Command: "old", Entries: []evidence.Entry{{Op: evidence.OpWrite, Path: governor, Old: "powersave\n"}}}}}
	writeJournal(t, journal, j, os.Geteuid(), 0o600)
	m := &Machine{Root: fsroot.Root(root), Journal: journal, ThisBoot: true}
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, governor)); string(got) != "powersave\n" {
		t.Errorf("the governor reads %q", got)
	}
}

// A tune records the boot it was made in.
func TestJournalRecordsTheBoot(t *testing.T) {
	root := copyTree(t, "acpi-cpufreq")
	os.MkdirAll(filepath.Join(root, "proc/sys/kernel/random"), 0o755)
	os.WriteFile(filepath.Join(root, bootPath), []byte("0b7ef3c4-now\n"), 0o644)
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json")}
	if _, err := m.Session("test").Apply(t.Context(), []evidence.Change{{Path: governor, Value: "performance"}}); err != nil {
		t.Fatal(err)
	}
	j, err := ReadJournal(m.JournalPath())
	if err != nil || j == nil || j.BootID != "0b7ef3c4-now" || j.Schema != JournalSchema {
		t.Fatalf("journal %+v, %v: want this boot's ID", j, err)
	}
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// holdLock starts cmd, a flock(1) that runs `sh -c 'echo ready; exec
// cat'`, and returns once it holds the lock; the lock is freed when the
// test ends, by ending cat's input and killing flock by its PID.
func holdLock(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	stdin, err := cmd.StdinPipe()
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
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the lock holder said %q (%v)", line, err)
	}
	return cmd.Process.Pid
}

// lockDir is a journal folder other users may read, as /run/corepin is.
func lockDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "corepin-lock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// nobody's flock of the journal's folder, which used to hang every tune
// of root's, holds nothing now; nor can nobody open the lock file itself.
func TestLockNotHeldByAnotherUser(t *testing.T) {
	root := copyTree(t, "acpi-cpufreq")
	dir := lockDir(t)
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(dir, "system.json"), LockTimeout: time.Minute}
	holdLock(t, nobody.Command(t, "flock", dir, "sh", "-c", "echo ready; exec cat"))
	// A minute is far more than a free lock takes: a reset that waits
	// means the folder's flock still counts.
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatalf("reset beside nobody's flock of the folder: %v", err)
	}
	out, err := nobody.Command(t, "flock", "-n", m.lockPath(), "true").CombinedOutput()
	if err == nil {
		t.Errorf("nobody took the lock file %s", m.lockPath())
	}
	t.Logf("nobody's flock of the lock file: %v: %s", err, out)
}

// A holder that does not let go is waited for until the timeout, and the
// error names it.
func TestLockTimeoutNamesTheHolder(t *testing.T) {
	root := copyTree(t, "acpi-cpufreq")
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "system.json"), LockTimeout: 50 * time.Millisecond}
	if err := os.WriteFile(m.lockPath(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	pid := holdLock(t, exec.Command("flock", m.lockPath(), "sh", "-c", "echo ready; exec cat"))
	told := 0
	m.Waiting = func(holder int, lock string, timeout time.Duration) {
		told++
		if holder != pid || lock != m.lockPath() || timeout != m.LockTimeout {
			t.Errorf("told of a wait for %d on %s for %s; want %d on %s for %s", holder, lock, timeout, pid, m.lockPath(), m.LockTimeout)
		}
	}
	_, err := m.Reset(t.Context())
	var le *LockError
	if !errors.As(err, &le) || !errors.Is(err, ErrLockTimeout) || le.Holder != pid {
		t.Fatalf("reset with the lock held by %d: %v", pid, err)
	}
	if want := "held by pid " + strconv.Itoa(pid) + " (flock)"; !strings.Contains(err.Error(), want) {
		t.Errorf("%q does not say %q", err, want)
	}
	if told != 1 {
		t.Errorf("told of the wait %d times, want once", told)
	}
}

// A signal (the context's end) ends the wait at once, whatever the
// timeout.
func TestLockWaitEndsWithTheContext(t *testing.T) {
	root := copyTree(t, "acpi-cpufreq")
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "system.json"), LockTimeout: time.Hour}
	os.WriteFile(m.lockPath(), nil, 0o600)
	holdLock(t, exec.Command("flock", m.lockPath(), "sh", "-c", "echo ready; exec cat"))
	ctx, cancel := context.WithCancel(t.Context())
	m.Waiting = func(int, string, time.Duration) { cancel() }
	_, err := m.Reset(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("reset after the context ended: %v", err)
	}
}

// A signal in the middle of a tune puts back what it changed.
func TestSignalMidTuneRollsBack(t *testing.T) {
	root := copyTree(t, "intel-pstate")
	before := snapshot(t, root)
	changes, err := Plan(mustRead(t, root, cpuset.Of(1)), fullRequest(cpuset.Of(1)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	writes := 0
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json"), write: func(path string, data []byte) error {
		if writes++; writes == 2 {
			cancel() // as SIGINT would, between the second write and the third
		}
		return writeFile(path, data)
	}}
	res, err := m.Session("test").Apply(ctx, changes)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("tune after the signal: %v", err)
	}
	if res.Rollback == nil || len(res.Rollback.Restored) != 2 {
		t.Errorf("rollback %+v, want the two changes put back", res.Rollback)
	}
	sameTree(t, before, snapshot(t, root))
	if _, err := os.Stat(m.JournalPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left after the rollback: %v", err)
	}
}

// The temporary files of a save that a SIGKILL cut short are removed by
// the next corepin that takes the lock.
func TestStaleTempFilesAreSwept(t *testing.T) {
	root := copyTree(t, "acpi-cpufreq")
	dir := t.TempDir()
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(dir, "system.json")}
	stale := filepath.Join(dir, ".system.json.123456")
	if err := os.WriteFile(stale, []byte(`{"schema":`), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, ".other.json.1")
	os.WriteFile(other, nil, 0o600)
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another file was removed: %v", err)
	}
}

// Any corepin command removes them too, when nobody holds the lock: a
// tune killed in its first save leaves no journal, so no later command
// has a reason to take the lock. A holder's temporary files are its own.
func TestStaleTempFilesAreSweptByAnyCommand(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "system.json")
	stale := filepath.Join(dir, ".system.json.654321")
	os.WriteFile(stale, []byte(`{"schema":`), 0o600)
	SweepTemps(journal) // no lock file: no save of corepin's was made here
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("removed without a lock file: %v", err)
	}
	// flock's locks are of an open file: another open of the lock file,
	// in this process too, cannot take it while this one holds it.
	held, err := os.OpenFile(journal+".lock", os.O_CREATE|os.O_RDONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	SweepTemps(journal)
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("removed while the lock is held: %v", err)
	}
	held.Close()
	SweepTemps(journal)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale temporary file is still there once the lock is free: %v", err)
	}
}

func TestParseLocks(t *testing.T) {
	text := "1: POSIX  ADVISORY  WRITE 77 00:19:12 0 EOF\n" +
		"2: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF\n" +
		"2: -> FLOCK  ADVISORY  WRITE 999 08:01:5678 0 EOF\n"
	if got := parseLocks(text, "08:01:5678"); got != 1234 {
		t.Errorf("holder %d, want 1234", got)
	}
	if got := parseLocks(text, "08:01:9"); got != 0 {
		t.Errorf("holder %d of an unlocked file, want 0", got)
	}
}
