package launch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/testcpu"
	"golang.org/x/sys/unix"
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

// TestStaleCgroupsAreSwept: a run cgroup left by a corepin that was
// killed (its PID no longer runs) is removed when the next cgroup is
// made; one named for a process that runs is kept.
func TestStaleCgroupsAreSwept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("makes cgroups: needs root")
	}
	probe, why := newCgroup(fsroot.Host, cpuset.Of(testcpu.Target(t)))
	if probe == nil {
		t.Skipf("no cgroup for a run here: %s", why)
	}
	homes := probe.Dirs()
	probe.remove()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	var stale, live []string
	for _, d := range homes {
		home := filepath.Dir(d)
		s := filepath.Join(home, fmt.Sprintf("corepin-%d-1", gone.Process.Pid))
		l := filepath.Join(home, fmt.Sprintf("corepin-%d-999999", os.Getppid()))
		for _, p := range []string{s, l} {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		stale, live = append(stale, s), append(live, l)
	}
	defer func() {
		for _, p := range append(stale, live...) {
			unix.Rmdir(p)
		}
	}()
	swept.Lock()
	swept.dirs = nil // as in a new process
	swept.Unlock()
	cg, why := newCgroup(fsroot.Host, cpuset.Of(testcpu.Target(t)))
	if cg == nil {
		t.Fatalf("no cgroup: %s", why)
	}
	cg.remove()
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the stale %s is still there", p)
		}
	}
	for _, p := range live {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the live process's %s was removed: %v", p, err)
		}
	}
}
