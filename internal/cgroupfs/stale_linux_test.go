package cgroupfs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
)

// A run cgroup named for a PID that started after the cgroup was made is
// a dead corepin's, whose PID was reused: it is not the owner's.
func TestMadeBy(t *testing.T) {
	dir := t.TempDir()
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	boot, err := procfs.BootTime(fsroot.Host)
	if err != nil {
		t.Skip("no btime in /proc/stat:", err)
	}
	self, err := procfs.Identify(fsroot.Host, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	ticks := func(at time.Time) uint64 { return uint64(at.Sub(boot) / procfs.Tick) }
	made := time.Unix(st.Ctim.Unix())
	for _, start := range []uint64{self.Start, ticks(made)} {
		if ok, err := MadeBy(fsroot.Host, dir, start); !ok || err != nil {
			t.Errorf("a process that started at %d, before its cgroup, is not taken for its maker (%v)", start, err)
		}
	}
	if ok, _ := MadeBy(fsroot.Host, dir, ticks(made.Add(5*time.Second))); ok {
		t.Error("a process that started 5 s after the cgroup is taken for its maker")
	}
	if _, err := MadeBy(fsroot.Host, filepath.Join(dir, "gone"), self.Start); err == nil {
		t.Error("a missing cgroup gave no error")
	}
}

// stat writes a fixture /proc/PID/stat and /proc/stat.
func stat(t *testing.T, root string, pid int, state string, start uint64, boot time.Time) {
	t.Helper()
	os.MkdirAll(filepath.Join(root, "proc", fmt.Sprint(pid)), 0o755)
	line := fmt.Sprintf("%d (corepin) %s 1 %d %d 0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 %d 3133440 386 18446744073709551615 1 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 1 1 1 1 1 1 1 0\n", pid, state, pid, pid, start)
	os.WriteFile(filepath.Join(root, "proc", fmt.Sprint(pid), "stat"), []byte(line), 0o644)
	os.WriteFile(filepath.Join(root, "proc", "stat"), []byte(fmt.Sprintf("cpu  1 2 3 4\nbtime %d\n", boot.Unix())), 0o644)
}

// TestStale: on a fixture /proc, a run cgroup is stale when its PID is a
// zombie or started after the cgroup; it is kept when its owner started
// before it.
func TestStale(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	dir := filepath.Join(home, "corepin-4242-1")
	os.Mkdir(dir, 0o755)
	os.Mkdir(filepath.Join(home, "corepin-shield-4242"), 0o755)
	os.Mkdir(filepath.Join(home, "unrelated"), 0o755)
	boot := time.Now().Add(-time.Hour)
	before := uint64(30 * 60 * procfs.UserHZ) // half an hour after boot
	stat(t, root, 4242, "S", before, boot)
	if got := Stale(fsroot.Root(root), home); len(got) != 0 {
		t.Errorf("a living owner's cgroup is stale: %v", got)
	}
	stat(t, root, 4242, "Z", before, boot)
	if got := Stale(fsroot.Root(root), home); len(got) != 1 || got[0] != dir {
		t.Errorf("a zombie owner's cgroup: %v, want %s", got, dir)
	}
	stat(t, root, 4242, "S", uint64(2*60*60*procfs.UserHZ), boot) // started after the cgroup
	if got := Stale(fsroot.Root(root), home); len(got) != 1 {
		t.Errorf("a reused PID's cgroup is not stale: %v", got)
	}
}

func TestRunOwner(t *testing.T) {
	for name, want := range map[string]int{"corepin-123-4": 123, "corepin-shield-123": 0, "corepin-123": 0, "corepin-0-1": 0, "other-1-2": 0, "corepin-12x-1": 0} {
		if got, ok := RunOwner(name); got != want || ok != (want > 0) {
			t.Errorf("%s: %d %v, want %d", name, got, ok, want)
		}
	}
}
