package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
)

// SweepStale finds what a corepin that was killed left behind when its
// guard could not finish the cleanup (the guard was killed too): every
// run cgroup below corepin's own cgroups whose name carries corepin's
// mark for a corepin of this PID namespace that no longer runs
// (cgroupfs.OwnerGone). A cgroup without the mark, or of another
// namespace, or whose corepin cannot be told gone, is never touched. With
// end, such a cgroup's tasks, that run's tree, are thawed and ended and
// the cgroup is removed, nested cgroups first; without it (a command that
// only reads) nothing is changed and the strays are only reported. Every
// corepin command calls it at its start and says what it found; a run's
// cgroup set-up sweeps the folders it uses once more (sweepStale).
func SweepStale(root fsroot.Root, end bool) []Stray {
	homes, err := cgroupfs.RunHomes(root)
	if err != nil {
		return nil
	}
	ns := cgroupfs.SelfMark().Namespace
	// One dead run has a directory of the same name in each hierarchy.
	stale := map[string]*cgroup{}
	for ctl, home := range homes {
		version := 1
		if ctl == "" {
			version = 2
		}
		for _, dir := range cgroupfs.Stale(root, home, ns) {
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
	if end {
		swept.Lock()
		if swept.dirs == nil {
			swept.dirs = map[string]bool{}
		}
		for _, home := range homes {
			swept.dirs[home] = true
		}
		swept.Unlock()
	}
	var out []Stray
	for _, key := range sortedKeys(stale) {
		cg := stale[key]
		if !end {
			if n := len(cg.allProcs()); n > 0 {
				out = append(out, Stray{Cgroup: cg.name, Left: n})
			}
			continue
		}
		cg.noteSwept()
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

// noteSwept tells the run, should its corepin be alive after all, who
// ended it and why (see cgroupfs.NoteSwept).
func (cg *cgroup) noteSwept() {
	note := fmt.Sprintf("corepin (pid %d) ended its processes and removed it at %s, taking pid %s for a dead corepin of this PID namespace",
		os.Getpid(), time.Now().Format(time.RFC3339), strings.SplitN(strings.TrimPrefix(cg.name, "corepin-"), "-", 2)[0])
	for _, d := range cg.dirs {
		cgroupfs.NoteSwept(d, note)
	}
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
