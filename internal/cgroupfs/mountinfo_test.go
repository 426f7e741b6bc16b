package cgroupfs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/fsroot"
)

const mountinfo = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime shared:9 - cgroup cgroup rw,cpuset,clone_children
35 31 0:32 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd
41 31 0:38 /user.slice /sys/fs/cgroup/my\040unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate
`

func TestParseMountinfo(t *testing.T) {
	ms := ParseMountinfo([]byte(mountinfo))
	if len(ms) != 5 {
		t.Fatalf("%d cgroup mounts, want 5: %+v", len(ms), ms)
	}
	if m := ms[1]; m.Dir != "/sys/fs/cgroup/cpuset" || m.Version != 1 || len(m.Controllers) != 1 || m.Controllers[0] != "cpuset" {
		t.Errorf("cpuset: %+v", m)
	}
	if m := ms[2]; len(m.Controllers) != 2 || !m.Has("cpu") || !m.Has("cpuacct") {
		t.Errorf("cpu,cpuacct: %+v", m)
	}
	if m := ms[3]; len(m.Controllers) != 0 {
		t.Errorf("a named hierarchy has no controller: %+v", m)
	}
	if m := ms[4]; m.Version != 2 || m.Dir != "/sys/fs/cgroup/my unified" || m.Root != "/user.slice" || m.Has("cpu") {
		t.Errorf("cgroup2: %+v", m)
	}
	if got := HierarchyDir(ms[4], "/user.slice/user-0.slice"); got != "/sys/fs/cgroup/my unified/user-0.slice" {
		t.Errorf("v2 directory %q", got)
	}
	if got := HierarchyDir(ms[4], "/system.slice"); got != "" {
		t.Errorf("a cgroup outside the mount's root gave %q", got)
	}
	if m, ok := V1(ms, "cpuacct"); !ok || m.Dir != "/sys/fs/cgroup/cpuacct" {
		t.Errorf("V1(cpuacct) = %+v, %v: want the first hierarchy with it", m, ok)
	}
	if _, ok := V1(ms, "freezer"); ok {
		t.Error("a freezer found where none is mounted")
	}
	if m, ok := V2(ms); !ok || m.Dir != "/sys/fs/cgroup/my unified" {
		t.Errorf("V2 = %+v, %v", m, ok)
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`/a\040b`:     "/a b",
		`/tab\011x`:   "/tab\tx",
		`/nl\012`:     "/nl\n",
		`/back\134sl`: `/back\sl`,
		`/not\09x`:    `/not\09x`,
		`/plain`:      "/plain",
	} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRealMountinfo reads the mountinfo files kept from real machines:
// this CI machine's cgroup v1 and a systemd guest's cgroup v2.
func TestRealMountinfo(t *testing.T) {
	host, err := os.ReadFile("testdata/mountinfo-host")
	if err != nil {
		t.Fatal(err)
	}
	ms := ParseMountinfo(host)
	for _, ctl := range []string{"cpu", "cpuacct", "cpuset", "freezer"} {
		if _, ok := V1(ms, ctl); !ok {
			t.Errorf("no %s hierarchy in %+v", ctl, ms)
		}
	}
	if m, ok := V2(ms); !ok || m.Dir != "/sys/fs/cgroup/unified" {
		t.Errorf("v2: %+v", m)
	}
	guest, err := os.ReadFile("testdata/mountinfo-v2")
	if err != nil {
		t.Fatal(err)
	}
	if ms := ParseMountinfo(guest); len(ms) != 1 || ms[0].Version != 2 || ms[0].Dir != "/sys/fs/cgroup" {
		t.Errorf("guest: %+v", ms)
	}
}

// fixture makes a tree with proc/self/mountinfo and proc/self/cgroup.
func fixture(t *testing.T, mountinfo, cgroup string) fsroot.Root {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proc", "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "proc", "self", "mountinfo"), []byte(mountinfo), 0o644)
	os.WriteFile(filepath.Join(dir, "proc", "self", "cgroup"), []byte(cgroup), 0o644)
	return fsroot.Root(dir)
}

func TestCpusetHierarchy(t *testing.T) {
	root := fixture(t, mountinfo, "")
	if m, err := CpusetHierarchy(root); err != nil || m.Dir != "/sys/fs/cgroup/cpuset" {
		t.Errorf("v1: %+v, %v", m, err)
	}
	// A v2 mount counts where its root offers cpuset.
	v2 := t.TempDir()
	line := "25 1 0:22 / " + v2 + " rw - cgroup2 none rw\n"
	root = fixture(t, line, "")
	if _, err := CpusetHierarchy(root); err == nil {
		t.Error("a v2 mount without cpuset was taken")
	}
	os.MkdirAll(root.Path(v2), 0o755)
	os.WriteFile(root.Path(v2, "cgroup.controllers"), []byte("cpu cpuset memory\n"), 0o644)
	if m, err := CpusetHierarchy(root); err != nil || m.Version != 2 || m.Dir != v2 {
		t.Errorf("v2: %+v, %v", m, err)
	}
	if _, err := CpusetHierarchy(fsroot.Root(t.TempDir())); err == nil {
		t.Error("a tree without mountinfo found a hierarchy")
	}
}

func TestParseProcCgroup(t *testing.T) {
	got := ParseProcCgroup([]byte("9:name=systemd:/\n4:memory:/a/b\n3:cpu,cpuacct:/c\n0::/d:e\n"))
	if got["memory"] != "/a/b" || got["cpu"] != "/c" || got["cpuacct"] != "/c" || got[""] != "/d:e" || got["name=systemd"] != "/" {
		t.Errorf("%v", got)
	}
}

func TestRunHomes(t *testing.T) {
	root := fixture(t, mountinfo, "3:cpuset:/a\n2:cpu,cpuacct:/b\n0::/user.slice/u\n")
	homes, err := RunHomes(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"cpuset":  "/sys/fs/cgroup/cpuset/a",
		"cpuacct": "/sys/fs/cgroup/cpuacct/b", // the first hierarchy with cpuacct
		"cpu":     "/sys/fs/cgroup/cpu,cpuacct/b",
		"":        "/sys/fs/cgroup/my unified/u",
	}
	if len(homes) != len(want) {
		t.Errorf("homes %v, want %v", homes, want)
	}
	for k, v := range want {
		if homes[k] != v {
			t.Errorf("home %q = %q, want %q", k, homes[k], v)
		}
	}
}

// Every name corepin gives a cgroup carries its mark, which reads back;
// names without the whole mark, an older corepin's corepin-PID-N among
// them, read as no run cgroup.
func TestNames(t *testing.T) {
	a, b := NewRunName(), NewRunName()
	if a == b || !strings.HasPrefix(a, "corepin-") {
		t.Errorf("names %q, %q", a, b)
	}
	self := SelfMark()
	if self.Owner.PID != os.Getpid() || self.Owner.Start == 0 || self.Namespace == 0 {
		t.Errorf("this process's mark %+v lacks its PID, start time or namespace", self)
	}
	if m, ok := ParseRunName(a); !ok || m != self {
		t.Errorf("ParseRunName(%q) = %+v, %v; want %+v", a, m, ok, self)
	}
	bw := NewBandwidthName()
	if m, ok := ParseBandwidthName(bw); !ok || m != self {
		t.Errorf("ParseBandwidthName(%q) = %+v, %v", bw, m, ok)
	}
	for _, name := range []string{bw, "corepin-shield-12", "corepin-0-1", "corepin-12-1", "corepin-12", "corepin-12-x", "other-12-1", "corepin--1-1",
		"corepin-12-s5-ns7", "corepin-12-5-7-1", "corepin-012-s5-ns7-1", "corepin-12-s5-ns7-0", "corepin-0-s5-ns7-1", "corepin-12-s+5-ns7-1", "corepin-12-s5-ns7-1-1"} {
		if m, ok := ParseRunName(name); ok {
			t.Errorf("%q read as a run cgroup of %+v", name, m)
		}
	}
	if m, ok := ParseRunName("corepin-12-s5-ns4026531836-3"); !ok || m.Owner.PID != 12 || m.Owner.Start != 5 || m.Namespace != 4026531836 {
		t.Errorf("corepin-12-s5-ns4026531836-3: %+v, %v", m, ok)
	}
	for name, want := range map[string]int{"corepin-bandwidth-123-s4-ns9-1": 123, "corepin-bandwidth-123-4": 0, "corepin-bandwidth-x-s4-ns9-1": 0, "corepin-123-s4-ns9-1": 0} {
		if m, ok := ParseBandwidthName(name); m.Owner.PID != want || ok != (want > 0) {
			t.Errorf("ParseBandwidthName(%q) = %+v, %v; want PID %d", name, m, ok, want)
		}
	}
	if _, ok := ParseBandwidthName(a); ok {
		t.Errorf("%q read as a bandwidth cgroup", a)
	}
	sh := NewName(Shield)
	if m, ok := ParseShieldName(sh); !ok || m != self || !IsShield(sh) {
		t.Errorf("ParseShieldName(%q) = %+v, %v", sh, m, ok)
	}
	if k, m, ok := ParseName(sh); !ok || k != Shield || m != self {
		t.Errorf("ParseName(%q) = %v, %+v, %v", sh, k, m, ok)
	}
	if _, ok := ParseRunName(sh); ok {
		t.Errorf("%q read as a run cgroup", sh)
	}
	// An older corepin's shield names its maker by PID alone: a mark that
	// no sweep takes for gone.
	if m, ok := ParseShieldName("corepin-shield-77"); !ok || m.Owner.PID != 77 || m.Owner.Start != 0 || m.Namespace != 0 {
		t.Errorf("corepin-shield-77: %+v, %v", m, ok)
	}
	for _, name := range []string{"corepin-shield-077", "corepin-shield-x", "corepin-shield-", a, bw} {
		if m, ok := ParseShieldName(name); ok {
			t.Errorf("%q read as a shield of %+v", name, m)
		}
	}
}

func TestParseUsagePerCPU(t *testing.T) {
	per, err := ParseUsagePerCPU([]byte("5 0 7000000000 \n"))
	if err != nil || len(per) != 3 || per[2] != 7*time.Second || per[1] != 0 {
		t.Errorf("%v, %v", per, err)
	}
	if _, err := ParseUsagePerCPU([]byte("1 x")); err == nil {
		t.Error("a word parsed")
	}
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add([]byte(mountinfo))
	for _, name := range []string{"testdata/mountinfo-host", "testdata/mountinfo-v2"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(" - \n - cgroup2\n1 2 3 4 5 6 - cgroup x rw,\\"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range ParseMountinfo(data) {
			if m.Version != 1 && m.Version != 2 {
				t.Errorf("version %d", m.Version)
			}
			if m.Version == 2 && len(m.Controllers) > 0 {
				t.Errorf("a v2 mount with v1 controllers: %+v", m)
			}
			if slices.Contains(m.Controllers, "") {
				t.Errorf("an empty controller: %+v", m)
			}
		}
	})
}

func FuzzParseUsagePerCPU(f *testing.F) {
	f.Add([]byte("5 0 7000000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		per, err := ParseUsagePerCPU(data)
		for _, d := range per {
			if err == nil && d < 0 {
				t.Errorf("%q: negative %v", data, d)
			}
		}
	})
}

func FuzzParseProcCgroup(f *testing.F) {
	f.Add([]byte("3:cpu,cpuacct:/c\n0::/d\n"))
	f.Add([]byte("9:name=systemd:/\n4:memory:/process_api/6692\n0::/\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for ctl, path := range ParseProcCgroup(data) {
			if strings.Contains(ctl, ",") || strings.Contains(path, "\n") {
				t.Errorf("%q: controller %q path %q", data, ctl, path)
			}
		}
	})
}
