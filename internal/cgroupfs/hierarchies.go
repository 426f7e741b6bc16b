package cgroupfs

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"corepin.dev/corepin/fsroot"
)

// Hierarchies are the cgroup hierarchies as this process sees them: the
// mounts of /proc/self/mountinfo and the process's own cgroup in each
// (/proc/self/cgroup), read once. Everything that makes or finds a cgroup
// starts from them.
type Hierarchies struct {
	Root   fsroot.Root
	Mounts []Mount
	// Own is this process's cgroup path in each hierarchy, by controller
	// ("" for v2), as /proc/self/cgroup gives it.
	Own map[string]string
}

// Find reads the hierarchies under root.
func Find(root fsroot.Root) (*Hierarchies, error) {
	mounts, err := ReadMounts(root)
	if err != nil {
		return nil, err
	}
	own, err := ReadProcCgroup(root, "self")
	if err != nil {
		return nil, err
	}
	return &Hierarchies{Root: root, Mounts: mounts, Own: own}, nil
}

// V2 is the first cgroup v2 mount; ok is false where there is none.
func (h *Hierarchies) V2() (Mount, bool) { return V2(h.Mounts) }

// V1 is the first cgroup v1 hierarchy with the controller ctl; ok is
// false where none is mounted.
func (h *Hierarchies) V1(ctl string) (Mount, bool) { return V1(h.Mounts, ctl) }

// Whole is the first v1 mount of ctl that shows its hierarchy from the
// root, the machine's and not a container's part of it.
func (h *Hierarchies) Whole(ctl string) (Mount, bool) {
	i := slices.IndexFunc(h.Mounts, func(m Mount) bool { return m.Root == "/" && m.Has(ctl) })
	if i < 0 {
		return Mount{}, false
	}
	return h.Mounts[i], true
}

// Cpuset finds the hierarchy that holds the cpuset controller: a cgroup
// v1 mount with cpuset, else the cgroup v2 mount if its root cgroup offers
// cpuset.
func (h *Hierarchies) Cpuset() (Mount, error) {
	if m, ok := h.V1("cpuset"); ok {
		return m, nil
	}
	if m, ok := h.V2(); ok {
		ctl, _ := h.Root.ReadFile(filepath.Join(m.Dir, "cgroup.controllers"))
		if slices.Contains(strings.Fields(string(ctl)), "cpuset") {
			return m, nil
		}
	}
	return Mount{}, fmt.Errorf("no cpuset controller: neither a cgroup v1 cpuset mount nor cgroup v2 with cpuset (%w)", errors.ErrUnsupported)
}

// OwnDir is this process's cgroup directory in the hierarchy m, or ""
// when the mount does not show it.
func (h *Hierarchies) OwnDir(m Mount) string {
	path, ok := h.Own[key(m)]
	if !ok {
		return ""
	}
	return HierarchyDir(m, path)
}

// TaskDir is the cgroup directory of task ("self/task/TID", a PID) in
// the hierarchy m.
func (h *Hierarchies) TaskDir(m Mount, task string) (string, error) {
	paths, err := ReadProcCgroup(h.Root, task)
	if err != nil {
		return "", err
	}
	path, ok := paths[key(m)]
	if !ok {
		return "", fmt.Errorf("/proc/%s/cgroup: no line of the hierarchy mounted at %s", task, m.Dir)
	}
	dir := HierarchyDir(m, path)
	if dir == "" {
		return "", fmt.Errorf("%s's cgroup %s is not under the mount %s", task, path, m.Dir)
	}
	return dir, nil
}

// Delegated says whether the v2 cgroup dir lets its children have each
// of the controllers ctls (cgroup.subtree_control).
func (h *Hierarchies) Delegated(dir string, ctls ...string) (bool, error) {
	f, err := Subtree(h.Root, dir)
	if err != nil {
		return false, err
	}
	for _, c := range ctls {
		if !slices.Contains(f, c) {
			return false, nil
		}
	}
	return true, nil
}

// key is the controller that names m's line in /proc/PID/cgroup: "" for
// v2, else the first of m's controllers; a v1 hierarchy without one (a
// named hierarchy, name=systemd) has no key, and "-" matches no line.
func key(m Mount) string {
	switch {
	case m.Version == 2:
		return ""
	case len(m.Controllers) == 0:
		return "-"
	}
	return m.Controllers[0]
}
