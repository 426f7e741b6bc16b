package sched

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/fsroot"
)

// fixture writes files under a new root.
func fixture(t *testing.T, files map[string]string) fsroot.Root {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fsroot.Root(dir)
}

// The probes' facts come from files under a root, so they can be checked
// on trees that are not this machine.
func TestProbeFactsOnFixtures(t *testing.T) {
	with := fixture(t, map[string]string{"proc/sys/kernel/sched_util_clamp_min": "1024\n", "proc/sys/kernel/pid_max": "4194304\n"})
	without := fixture(t, map[string]string{"proc/sys/kernel/pid_max": "4194304\n"})
	empty := fixture(t, nil)
	if f := UclampAt(with); !f.Supported {
		t.Errorf("with the sysctl: %+v", f)
	}
	if f := UclampAt(without); f.Supported || !strings.Contains(f.Evidence, "CONFIG_UCLAMP_TASK") {
		t.Errorf("without the sysctl: %+v", f)
	}
	if f := UclampAt(empty); f.Supported || !strings.Contains(f.Evidence, "unknown") {
		t.Errorf("with no /proc/sys (a fixture, not this machine): %+v", f)
	}

	held := fixture(t, map[string]string{
		"proc/self/status":    "Name:\tcorepin\nCapEff:\t000001ffffffffff\n",
		"proc/self/cgroup":    "4:cpu,cpuacct:/user.slice\n0::/user.slice\n",
		"proc/self/mountinfo": "35 31 0:32 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n",
		"sys/fs/cgroup/cpu,cpuacct/user.slice/cpu.rt_runtime_us": "0\n",
	})
	none := fixture(t, map[string]string{"proc/self/status": "CapEff:\t0000000000000000\n"})
	if got := CapSysNiceFact(held); got != "CAP_SYS_NICE held" {
		t.Errorf("CapEff with bit 23: %q", got)
	}
	if got := CapSysNiceFact(none); got != "no CAP_SYS_NICE" {
		t.Errorf("CapEff 0: %q", got)
	}
	if got := CapSysNiceFact(empty); got != "capabilities unknown" {
		t.Errorf("no status file: %q", got)
	}
	if got := RTRuntimeFact(held); got != "cgroup /user.slice cpu.rt_runtime_us=0" {
		t.Errorf("rt runtime: %q", got)
	}
	if got := RTRuntimeFact(none); got != "" {
		t.Errorf("no cgroup file: %q", got)
	}
}
