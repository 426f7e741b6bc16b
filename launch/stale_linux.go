package launch

import (
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
)

// SweepStale ends what a corepin that was killed left behind when its
// guard could not finish the cleanup (the guard was killed too): every
// run cgroup below corepin's own cgroups that is named corepin-PID-N for
// a PID that no longer runs the corepin that made it. Such a cgroup's
// tasks are that run's tree, by the cgroup's name and the owner's
// identity: they are thawed and ended, and the cgroup is removed, nested
// cgroups first. A living corepin's cgroups are never touched. Every
// corepin command calls it at its start and says what it did; a run's
// cgroup set-up sweeps the folders it uses once more (sweepStale).
func SweepStale(root fsroot.Root) []Stray {
	homes, err := cgroupfs.RunHomes(root)
	if err != nil {
		return nil
	}
	// One dead run has a directory of the same name in each hierarchy.
	stale := map[string]*cgroup{}
	for ctl, home := range homes {
		version := 1
		if ctl == "" {
			version = 2
		}
		for _, dir := range cgroupfs.Stale(root, home) {
			name := filepath.Base(dir)
			key := strconv.Itoa(version) + "/" + name
			cg := stale[key]
			if cg == nil {
				cg = &cgroup{version: version, name: name, dirs: map[string]string{}, fd: -1}
				stale[key] = cg
			}
			cg.dirs[ctl] = dir
		}
	}
	swept.Lock()
	if swept.dirs == nil {
		swept.dirs = map[string]bool{}
	}
	for _, home := range homes {
		swept.dirs[home] = true
	}
	swept.Unlock()
	var out []Stray
	for _, key := range sortedKeys(stale) {
		cg := stale[key]
		ended, err := cg.end()
		if ended == 0 && err == nil {
			continue // an empty one, as corepin's own sweep always removed
		}
		s := Stray{Cgroup: cg.name, Ended: ended}
		if err != nil {
			s.Err = err.Error()
		}
		out = append(out, s)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// end ends a run cgroup whose corepin is gone: it thaws it (the corepin
// may have died between its freeze and its thaw), ends every process in
// it and in the cgroups nested in it, waits until they are gone, and
// removes it, nested cgroups first. It returns how many processes it
// found to end.
func (cg *cgroup) end() (int, error) {
	if dir := cg.dirs["freezer"]; dir != "" && cg.version == 1 {
		cgroupfs.Thaw(dir)
	}
	live := len(cg.allProcs())
	if live > 0 {
		cg.kill()
		for deadline := time.Now().Add(5 * time.Second); len(cg.allProcs()) > 0 && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			cg.signal(unix.SIGKILL) // what forked between the listing and the kill
		}
	}
	return live, cg.remove()
}

// readTaskStat reads /proc/PID/stat under root.
func readTaskStat(root fsroot.Root, pid int) (procfs.TaskStat, bool) {
	st, err := procfs.ReadTaskStat(root, pid)
	return st, err == nil
}
