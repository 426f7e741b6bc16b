package system

import (
	"strings"
	"testing"
)

func TestParseMountinfo(t *testing.T) {
	// This machine's lines, and a guest's.
	text := `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/cpuset rw,relatime shared:9 - cgroup cgroup rw,cpuset
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`
	if v1, v2 := parseMountinfo(text); v1 != "/sys/fs/cgroup/cpuset" || v2 != "/sys/fs/cgroup/unified" {
		t.Errorf("v1 %q, v2 %q", v1, v2)
	}
	if v1, v2 := parseMountinfo("25 1 0:22 / /sys/fs/cgroup rw - cgroup2 none rw\n"); v1 != "" || v2 != "/sys/fs/cgroup" {
		t.Errorf("v2 only: v1 %q, v2 %q", v1, v2)
	}
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add("35 31 0:32 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n")
	f.Add(" - \n - cgroup2\n")
	f.Fuzz(func(t *testing.T, text string) {
		v1, v2 := parseMountinfo(text)
		if strings.ContainsAny(v1+v2, " \n") {
			t.Errorf("a mount point with a separator: %q %q", v1, v2)
		}
	})
}
