package sched

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/fsroot"
)

func throttleRoot(t *testing.T, runtime, period string) fsroot.Root {
	t.Helper()
	dir := t.TempDir()
	k := filepath.Join(dir, "proc/sys/kernel")
	os.MkdirAll(k, 0o755)
	os.WriteFile(filepath.Join(k, "sched_rt_runtime_us"), []byte(runtime+"\n"), 0o644)
	os.WriteFile(filepath.Join(k, "sched_rt_period_us"), []byte(period+"\n"), 0o644)
	return fsroot.Root(dir)
}

func TestRTThrottle(t *testing.T) {
	th, err := ReadRTThrottle(throttleRoot(t, "950000", "1000000"))
	if err != nil || !th.Active() || th.Cost() != 0.05 || !strings.Contains(th.Warning(), "50 ms of every second (5.0%)") {
		t.Errorf("%+v, %v: %q", th, err, th.Warning())
	}
	th, err = ReadRTThrottle(throttleRoot(t, "-1", "1000000"))
	if err != nil || th.Active() || th.Warning() != "" {
		t.Errorf("lifted: %+v, %v, %q", th, err, th.Warning())
	}
	for _, bad := range [][2]string{{"x", "1000000"}, {"950000", "0"}} {
		if _, err := ReadRTThrottle(throttleRoot(t, bad[0], bad[1])); err == nil {
			t.Errorf("%v read", bad)
		}
	}
	if _, err := ReadRTThrottle(fsroot.Root(t.TempDir())); err == nil {
		t.Error("a root without the sysctls read")
	}
}
