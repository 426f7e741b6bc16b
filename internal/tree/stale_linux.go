package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
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
	stale := map[string]*cgroupfs.Group{}
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
				cg = cgroupfs.Found(version, name, nil)
				stale[key] = cg
			}
			cg.Dirs[ctl] = dir
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
			if n := len(cg.AllProcs()); n > 0 {
				out = append(out, Stray{Cgroup: cg.Name, Left: n})
			}
			continue
		}
		noteSwept(cg)
		ended, err := cg.End()
		if ended == 0 && err == nil {
			continue // an empty one, as corepin's own sweep always removed
		}
		s := Stray{Cgroup: cg.Name, Ended: ended}
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
func noteSwept(cg *cgroupfs.Group) {
	cg.NoteSwept(fmt.Sprintf("corepin (pid %d) ended its processes and removed it at %s, taking pid %s for a dead corepin of this PID namespace",
		os.Getpid(), time.Now().Format(time.RFC3339), strings.SplitN(strings.TrimPrefix(cg.Name, "corepin-"), "-", 2)[0]))
}
