package cgroupfs

import (
	"fmt"
	"path/filepath"
	"strings"

	"corepin.dev/corepin/fsroot"
)

// ReadProcCgroup reads /proc/TASK/cgroup under root, TASK a PID, "self"
// or "self/task/TID": for each v1 controller (and "" for v2) the path of
// the task's cgroup in that hierarchy.
func ReadProcCgroup(root fsroot.Root, task string) (map[string]string, error) {
	data, err := root.ReadFile("/proc/" + task + "/cgroup")
	if err != nil {
		return nil, fmt.Errorf("reading the cgroups of %s: %w", task, err)
	}
	return ParseProcCgroup(data), nil
}

// ParseProcCgroup parses lines of HIERARCHY-ID:CONTROLLERS:PATH; the
// path may itself hold colons.
func ParseProcCgroup(data []byte) map[string]string {
	out := map[string]string{}
	for line := range strings.SplitSeq(string(data), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[1] == "" {
			out[""] = f[2]
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			out[c] = f[2]
		}
	}
	return out
}

// HierarchyDir is the directory of path (from /proc/PID/cgroup) in the
// mounted hierarchy m, or "" when the mount does not show it.
func HierarchyDir(m Mount, path string) string {
	rel, err := filepath.Rel(m.Root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.Join(m.Dir, rel)
}

// RunHomes are the directories that hold this process's run cgroups
// under root: its own cgroup of the v2 hierarchy (keyed "") and of the v1
// hierarchies of cpuset, cpuacct, freezer and cpu (keyed by controller),
// where they are mounted and show it.
func RunHomes(root fsroot.Root) (map[string]string, error) {
	mounts, err := ReadMounts(root)
	if err != nil {
		return nil, err
	}
	own, err := ReadProcCgroup(root, "self")
	if err != nil {
		return nil, err
	}
	homes := map[string]string{}
	for _, m := range mounts {
		if m.Version == 2 {
			if dir := HierarchyDir(m, own[""]); dir != "" {
				homes[""] = dir
			}
			continue
		}
		for _, ctl := range []string{"cpuset", "cpuacct", "freezer", "cpu"} {
			if _, done := homes[ctl]; !done && m.Has(ctl) {
				if dir := HierarchyDir(m, own[ctl]); dir != "" {
					homes[ctl] = dir
				}
			}
		}
	}
	return homes, nil
}
