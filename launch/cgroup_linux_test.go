package launch

import (
	"testing"
	"time"
)

const mountinfo = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime shared:9 - cgroup cgroup rw,cpuset,clone_children
35 31 0:32 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd
41 31 0:38 /user.slice /sys/fs/cgroup/my\040unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate
`

func TestParseMountinfo(t *testing.T) {
	ms := parseMountinfo([]byte(mountinfo))
	if len(ms) != 5 {
		t.Fatalf("%d cgroup mounts, want 5: %+v", len(ms), ms)
	}
	if m := ms[1]; m.dir != "/sys/fs/cgroup/cpuset" || m.version != 1 || len(m.controllers) != 1 || m.controllers[0] != "cpuset" {
		t.Errorf("cpuset: %+v", m)
	}
	if m := ms[2]; len(m.controllers) != 2 {
		t.Errorf("cpu,cpuacct: %+v", m)
	}
	if m := ms[3]; len(m.controllers) != 0 {
		t.Errorf("a named hierarchy has no controller: %+v", m)
	}
	if m := ms[4]; m.version != 2 || m.dir != "/sys/fs/cgroup/my unified" || m.root != "/user.slice" {
		t.Errorf("cgroup2: %+v", m)
	}
	if got := hierarchyDir(ms[4], "/user.slice/user-0.slice"); got != "/sys/fs/cgroup/my unified/user-0.slice" {
		t.Errorf("v2 directory %q", got)
	}
	if got := hierarchyDir(ms[4], "/system.slice"); got != "" {
		t.Errorf("a cgroup outside the mount's root gave %q", got)
	}
}

func TestParseProcCgroup(t *testing.T) {
	got := parseProcCgroup([]byte("9:name=systemd:/\n4:memory:/a/b\n3:cpu,cpuacct:/c\n0::/d:e\n"))
	if got["memory"] != "/a/b" || got["cpu"] != "/c" || got["cpuacct"] != "/c" || got[""] != "/d:e" || got["name=systemd"] != "/" {
		t.Errorf("%v", got)
	}
}

func TestParseUsagePerCPU(t *testing.T) {
	per, err := parseUsagePerCPU([]byte("5 0 7000000000 \n"))
	if err != nil || len(per) != 3 || per[2] != 7*time.Second || per[1] != 0 {
		t.Errorf("%v, %v", per, err)
	}
	if _, err := parseUsagePerCPU([]byte("1 x")); err == nil {
		t.Error("a word parsed")
	}
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add([]byte(mountinfo))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range parseMountinfo(data) {
			if m.version != 1 && m.version != 2 {
				t.Errorf("version %d", m.version)
			}
		}
	})
}

func FuzzParseUsagePerCPU(f *testing.F) {
	f.Add([]byte("5 0 7000000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		per, err := parseUsagePerCPU(data)
		for _, d := range per {
			if err == nil && d < 0 {
				t.Errorf("%q: negative %v", data, d)
			}
		}
	})
}

func FuzzParseProcCgroup(f *testing.F) {
	f.Add([]byte("3:cpu,cpuacct:/c\n0::/d\n"))
	f.Fuzz(func(t *testing.T, data []byte) { parseProcCgroup(data) })
}
