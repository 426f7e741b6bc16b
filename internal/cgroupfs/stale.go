package cgroupfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
)

// OwnerGone says whether the corepin a cgroup's mark names has certainly
// ended, as seen from the PID namespace ns (the caller's): the mark is of
// that namespace, it names a start time, and no process has the PID, or
// the one that has it is a zombie or started at another time (the PID
// was reused). Whatever cannot be told, a mark of another namespace or
// of none, a start time unknown, a /proc that hides the process, is
// taken as alive: a living corepin's cgroups must never be taken for a
// dead one's.
func OwnerGone(root fsroot.Root, m RunMark, ns uint64) bool {
	if ns == 0 || m.Namespace != ns || m.Owner.Start == 0 {
		return false
	}
	st, err := procfs.ReadTaskStat(root, m.Owner.PID)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// hidepid hides others' processes as missing: only the kernel's
		// answer to a signal tells.
		return !root.IsHost() || !processExists(m.Owner.PID)
	case err != nil:
		return false
	}
	return st.Dead() || st.StartTime != m.Owner.Start
}

// processExists says whether pid names a process, even one corepin may
// not signal.
func processExists(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

// Stale lists the run cgroups directly in home that carry corepin's mark
// and whose corepin is gone as seen from the PID namespace ns (OwnerGone),
// as directories. The cgroup directories are the machine's own, as
// mountinfo names them; root is where /proc is read.
func Stale(root fsroot.Root, home string, ns uint64) []string { return stale(root, home, ns, Run) }

// SweepEmpty removes the cgroups directly in dir that a corepin made for
// itself alone (its runs', its bandwidth limits') and whose corepin is
// gone (OwnerGone), where they hold no task: rmdir refuses a cgroup with
// a task in it, so nothing that runs is touched. A shield is never
// swept: it outlives its corepin on purpose.
func SweepEmpty(root fsroot.Root, dir string, ns uint64) {
	for _, d := range stale(root, dir, ns, Run, Bandwidth) {
		RemoveTree(d, 0)
	}
}

// stale lists the cgroups of the kinds directly in home whose corepin is
// gone as seen from ns.
func stale(root fsroot.Root, home string, ns uint64, kinds ...Kind) []string {
	entries, err := os.ReadDir(home)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		k, m, ok := ParseName(e.Name())
		if !ok || !e.IsDir() || !slices.Contains(kinds, k) {
			continue // most entries are the cgroup's own files
		}
		if OwnerGone(root, m, ns) {
			out = append(out, filepath.Join(home, e.Name()))
		}
	}
	return out
}
