package cgroupfs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"corepin.dev/corepin/fsroot"
)

// Mount is one cgroup hierarchy as /proc/self/mountinfo shows it.
type Mount struct {
	Dir         string   // where it is mounted
	Root        string   // the part of the hierarchy seen there
	Version     int      // 1 or 2
	Controllers []string // v1: the controllers bound to it
}

// Has says whether m is a v1 hierarchy with the controller ctl.
func (m Mount) Has(ctl string) bool { return m.Version == 1 && slices.Contains(m.Controllers, ctl) }

// ReadMounts lists the cgroup hierarchies of /proc/self/mountinfo under
// root, in the file's order.
func ReadMounts(root fsroot.Root) ([]Mount, error) {
	data, err := root.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("reading the cgroup mounts: %w", err)
	}
	return ParseMountinfo(data), nil
}

// ParseMountinfo picks the cgroup and cgroup2 lines of a mountinfo file
// (proc(5)): ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS…] - TYPE
// SOURCE SUPEROPTIONS. The kernel writes a space, tab, newline or
// backslash in a path as an octal escape (\040), which is undone.
func ParseMountinfo(data []byte) []Mount {
	var out []Mount
	for line := range strings.SplitSeq(string(data), "\n") {
		f := strings.Fields(line)
		sep := slices.Index(f, "-")
		if sep < 5 || len(f) < sep+4 {
			continue
		}
		m := Mount{Root: unescape(f[3]), Dir: unescape(f[4])}
		switch f[sep+1] {
		case "cgroup2":
			m.Version = 2
		case "cgroup":
			m.Version = 1
			for _, o := range strings.Split(f[sep+3], ",") {
				switch o {
				case "rw", "ro", "relatime", "noatime", "nosuid", "nodev", "noexec", "clone_children", "noprefix", "xattr":
				default:
					if o != "" && !strings.Contains(o, "=") {
						m.Controllers = append(m.Controllers, o)
					}
				}
			}
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// V2 is the first cgroup v2 mount; ok is false where there is none.
func V2(mounts []Mount) (m Mount, ok bool) {
	i := slices.IndexFunc(mounts, func(m Mount) bool { return m.Version == 2 })
	if i < 0 {
		return Mount{}, false
	}
	return mounts[i], true
}

// V1 is the first cgroup v1 hierarchy with the controller ctl; ok is
// false where none is mounted.
func V1(mounts []Mount, ctl string) (m Mount, ok bool) {
	i := slices.IndexFunc(mounts, func(m Mount) bool { return m.Has(ctl) })
	if i < 0 {
		return Mount{}, false
	}
	return mounts[i], true
}

// CpusetHierarchy finds the hierarchy that holds the cpuset controller
// under root: a cgroup v1 mount with cpuset, else the cgroup v2 mount if
// its root cgroup offers cpuset.
func CpusetHierarchy(root fsroot.Root) (Mount, error) {
	mounts, err := ReadMounts(root)
	if err != nil {
		return Mount{}, fmt.Errorf("finding the cpuset hierarchy: %w", err)
	}
	return (&Hierarchies{Root: root, Mounts: mounts}).Cpuset()
}
