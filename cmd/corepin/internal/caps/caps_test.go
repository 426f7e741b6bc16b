package caps

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/sched"
)

// fixture copies a machine of the topology tests and adds the files caps
// reads beside it.
func fixture(t *testing.T, files map[string]string) fsroot.Root {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../../../topology/testdata/machines/sgu-al10")); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fsroot.Root(dir)
}

func TestReadFixture(t *testing.T) {
	root := fixture(t, map[string]string{
		"proc/sys/kernel/osrelease":            "5.10.43-harmony\n",
		"proc/sys/kernel/sched_util_clamp_min": "1024\n",
		"proc/self/status":                     "Name:\tcorepin\nCapEff:\t0000000000000000\n",
		qos.NodePath:                           "",
	})
	c, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kernel != "5.10.43-harmony" || !c.Uclamp || !c.QoSNode || c.OnlineCPUs != 14 {
		t.Errorf("caps of the fixture: %+v", c)
	}
	// Only a request on the machine itself can say; the files' facts are
	// the evidence.
	if c.Realtime || c.NiceLowering || c.Slice || !strings.Contains(c.Evidence["realtime"], "unknown") ||
		!strings.Contains(c.Evidence["nice_lowering"], "no CAP_SYS_NICE") {
		t.Errorf("requests on a fixture: %+v", c)
	}
	var text strings.Builder
	if err := c.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kernel 5.10.43-harmony", "uclamp  ", "HarmonyOS QoS  yes", "allowed CPUs   14 of 14"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

func TestReadWithoutUclamp(t *testing.T) {
	root := fixture(t, map[string]string{"proc/sys/kernel/pid_max": "32768\n"})
	c, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	if c.Uclamp || !strings.Contains(c.Evidence["uclamp"], "CONFIG_UCLAMP_TASK") || c.QoSNode || c.Kernel != "" {
		t.Errorf("caps: %+v", c)
	}
}

func TestReadNotATree(t *testing.T) {
	if _, err := Read(fsroot.Root(t.TempDir())); err == nil {
		t.Error("an empty folder read as a system")
	}
}

func TestReadAutogroup(t *testing.T) {
	mountinfo := "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
		"34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
	root := fixture(t, map[string]string{
		"proc/sys/kernel/sched_autogroup_enabled": "1\n",
		"proc/self/mountinfo":                     mountinfo,
		"proc/self/cgroup":                        "3:cpuset:/\n1:cpu:/\n0::/\n",
	})
	c, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Autogroup || !strings.Contains(c.Evidence["autogroup"], "sched_autogroup_enabled says \"1\"") {
		t.Errorf("autogroup %v: %q", c.Autogroup, c.Evidence["autogroup"])
	}
	// The files show a cpu hierarchy; only the live system is tried.
	if !c.CPUWeight || !strings.Contains(c.Evidence["cpu_weight"], "/sys/fs/cgroup/cpu with cpu.shares") ||
		!strings.Contains(c.Evidence["cpu_weight"], "not tried") {
		t.Errorf("cpu weight %v: %q", c.CPUWeight, c.Evidence["cpu_weight"])
	}
	var text strings.Builder
	if err := c.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "corepin puts a run whose step sets a nice value into a cpu cgroup") {
		t.Errorf("text:\n%s", text.String())
	}

	// Without a cpu hierarchy the nice value stays in its session, and
	// caps warns.
	root = fixture(t, map[string]string{
		"proc/sys/kernel/sched_autogroup_enabled": "1\n",
		"proc/self/mountinfo":                     mountinfo[strings.Index(mountinfo, "\n")+1:],
		"proc/self/cgroup":                        "3:cpuset:/\n0::/\n",
	})
	if c, err = Read(root); err != nil {
		t.Fatal(err)
	}
	text.Reset()
	c.WriteText(&text)
	if c.CPUWeight || !strings.Contains(c.Evidence["cpu_weight"], "no cgroup v1 cpu hierarchy") || !strings.Contains(text.String(), "warning: autogroup") {
		t.Errorf("cpu weight %v: %q\n%s", c.CPUWeight, c.Evidence["cpu_weight"], text.String())
	}

	// No autogroup: nothing to do about it.
	root = fixture(t, map[string]string{"proc/sys/kernel/sched_autogroup_enabled": "0\n"})
	if c, err = Read(root); err != nil {
		t.Fatal(err)
	}
	text.Reset()
	c.WriteText(&text)
	if c.Autogroup || strings.Contains(text.String(), "autogroup:") {
		t.Errorf("autogroup off: %v\n%s", c.Autogroup, text.String())
	}
}

// What a run gets is what this user may ask for: as a user without
// CAP_SYS_NICE (nobody, from root; or the test's own user, as in the
// shell-user guest), affinity alone, no nice below 0, no realtime, no
// uclamp raise where the kernel checks it, a tree held by the process
// group where no cgroup may be made; and the text says so up front.
func TestRunGetsAsAnUnprivilegedUser(t *testing.T) {
	c, text := capsAsUnprivileged(t)
	t.Logf("uid %d: affinity %v, nice below 0 %v, realtime %v, uclamp raise %v, containment %s (%s)",
		c.UID, c.Affinity, c.NiceLowering, c.Realtime, c.UclampRaise, c.Containment, c.Evidence["containment"])
	if !c.Affinity || c.NiceLowering || c.Realtime {
		t.Errorf("uid %d: affinity %v, nice below 0 %v, realtime %v: want affinity alone (%s; %s)", c.UID, c.Affinity, c.NiceLowering, c.Realtime, c.Evidence["affinity"], c.Evidence["priority"])
	}
	if !c.Uclamp && c.UclampRaise {
		t.Errorf("uclamp raise without uclamp: %s", c.Evidence["uclamp_raise"])
	}
	if c.Containment == "" || (c.Containment == launch.MechanismProcessGroup) != strings.HasPrefix(c.Evidence["containment"], "no cgroup: ") {
		t.Errorf("containment %q: %s", c.Containment, c.Evidence["containment"])
	}
	want := []string{"a run gets:", "  affinity      yes", "  nice below 0  no", "  realtime      no", "  process tree  "}
	if !c.UclampRaise {
		want = append(want, "a run's priority cannot be raised here: no nice below 0, no realtime, no uclamp raise (no CAP_SYS_NICE")
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the text lacks %q:\n%s", w, text)
		}
	}
}

// capsAsUnprivileged reads the capabilities as a user without
// CAP_SYS_NICE: this process when it is one, else the test binary run as
// nobody.
func capsAsUnprivileged(t *testing.T) (Capabilities, string) {
	t.Helper()
	if os.Geteuid() != 0 && sched.CapSysNiceFact(fsroot.Host) == "no CAP_SYS_NICE" {
		return readCaps(t)
	}
	cmd := nobody.Command(t, nobody.Executable(t), "-test.run", "^TestCapsHelper$")
	cmd.Env = append(os.Environ(), "COREPIN_CAPS_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("caps as nobody: %v\n%s", err, out)
	}
	jsonText, text, _ := strings.Cut(string(out), "\n--\n")
	var c Capabilities
	if err := json.Unmarshal([]byte(jsonText), &c); err != nil {
		t.Fatalf("caps as nobody printed %q: %v", out, err)
	}
	return c, text
}

func readCaps(t *testing.T) (Capabilities, string) {
	t.Helper()
	c, err := Read(fsroot.Host)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := c.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	return c, text.String()
}

// TestCapsHelper prints the capabilities as JSON, then "--", then as
// text, for capsAsUnprivileged.
func TestCapsHelper(t *testing.T) {
	if os.Getenv("COREPIN_CAPS_HELPER") == "" {
		t.Skip("run by TestRunGetsAsAnUnprivilegedUser")
	}
	c, text := readCaps(t)
	data, _ := json.Marshal(c)
	fmt.Printf("%s\n--\n%s", data, text)
	os.Stdout.Sync()
	os.Exit(0) // nothing of go test's own output after it
}
