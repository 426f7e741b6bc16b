package cgroupfs

import (
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
)

// MadeBy says whether the process that started at start (clock ticks
// since boot) may have made the cgroup directory dir: it started before
// the directory was made, give or take the second that the boot time is
// rounded to. A process that started later took the PID of a dead
// corepin, whose cgroup is not its own. Where the boot time cannot be
// read, it is taken as the maker: a living corepin's cgroups must never
// be taken for a dead one's. The error is the directory's.
func MadeBy(root fsroot.Root, dir string, start uint64) (bool, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return false, err
	}
	boot, err := procfs.BootTime(root)
	if err != nil {
		return true, nil
	}
	made := time.Unix(st.Ctim.Unix())
	return !procfs.Started(boot, start).After(made.Add(time.Second)), nil
}

// OwnerGone says whether the corepin that made the run cgroup dir, named
// for pid, has certainly ended: no process has that PID, or it is a
// zombie, or it started after the cgroup was made (the PID was reused).
// What cannot be told apart is taken as alive.
func OwnerGone(root fsroot.Root, dir string, pid int) bool {
	st, err := procfs.ReadTaskStat(root, pid)
	if err != nil {
		return !processExists(pid)
	}
	if st.Dead() {
		return true
	}
	made, err := MadeBy(root, dir, st.StartTime)
	return err == nil && !made
}

// processExists says whether pid names a process, even one corepin may
// not signal.
func processExists(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

// Stale lists the run cgroups directly in home whose corepin is gone
// (OwnerGone), as directories. The cgroup directories are the machine's
// own, as mountinfo names them; root is where /proc is read.
func Stale(root fsroot.Root, home string) []string {
	entries, err := os.ReadDir(home)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		pid, ok := RunOwner(e.Name())
		if !ok || !e.IsDir() {
			continue // most entries are the cgroup's own files
		}
		if dir := filepath.Join(home, e.Name()); OwnerGone(root, dir, pid) {
			out = append(out, dir)
		}
	}
	return out
}
