package launch

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/watch"
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
	mounts, err := readMounts(root)
	if err != nil {
		return nil
	}
	own, err := ownCgroups(root)
	if err != nil {
		return nil
	}
	// The homes of the run cgroups, by the key a cgroup's dirs use.
	homes := map[string]string{}
	version := 1
	for _, m := range mounts {
		if m.version == 2 {
			if dir := hierarchyDir(m, own[""]); dir != "" {
				homes[""] = dir
			}
			continue
		}
		for _, ctl := range []string{"cpuset", "cpuacct", "freezer", "cpu"} {
			if _, done := homes[ctl]; !done && slices.Contains(m.controllers, ctl) {
				if dir := hierarchyDir(m, own[ctl]); dir != "" {
					homes[ctl] = dir
				}
			}
		}
	}
	// One dead run has a directory of the same name in each hierarchy.
	stale := map[string]*cgroup{}
	for ctl, home := range homes {
		entries, err := os.ReadDir(home)
		if err != nil {
			continue
		}
		for _, e := range entries {
			pid, ok := cgroupOwner(e.Name())
			dir := filepath.Join(home, e.Name())
			if !ok || !e.IsDir() || !ownerGone(root, dir, pid) {
				continue
			}
			if ctl == "" {
				version = 2
			} else {
				version = 1
			}
			key := strconv.Itoa(version) + "/" + e.Name()
			cg := stale[key]
			if cg == nil {
				cg = &cgroup{version: version, name: e.Name(), dirs: map[string]string{}, fd: -1}
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
		thaw(dir)
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

// ownerGone says whether the corepin that made the run cgroup dir, named
// for pid, has certainly ended: no process has that PID, or it is a
// zombie, or it started after the cgroup was made (the PID was reused).
// What cannot be told apart is taken as alive: a living corepin's cgroups
// must never be touched.
func ownerGone(root fsroot.Root, dir string, pid int) bool {
	st, ok := readTaskStat(root, pid)
	if !ok {
		return !processExists(pid)
	}
	if st.State == 'Z' || st.State == 'X' {
		return true
	}
	var fi unix.Stat_t
	if err := unix.Stat(dir, &fi); err != nil {
		return false
	}
	boot, ok := bootTime(root)
	if !ok {
		return false
	}
	started := boot.Add(time.Duration(st.StartTime) * time.Second / procfs.UserHZ)
	made := time.Unix(fi.Ctim.Unix())
	// The boot time is whole seconds: a PID reused within a second of the
	// cgroup's making is taken as its owner, and its cgroup kept.
	return started.After(made.Add(time.Second))
}

// processExists says whether pid names a process, even one corepin may
// not signal.
func processExists(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

// readTaskStat reads /proc/PID/stat under root.
func readTaskStat(root fsroot.Root, pid int) (watch.TaskStat, bool) {
	data, err := root.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return watch.TaskStat{}, false
	}
	st, err := watch.ParseTaskStat(data)
	return st, err == nil
}

// bootTime is the btime line of /proc/stat: when the system booted, in
// whole seconds.
func bootTime(root fsroot.Root) (time.Time, bool) {
	data, err := root.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("btime ")); ok {
			s, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			return time.Unix(s, 0), err == nil
		}
	}
	return time.Time{}, false
}
