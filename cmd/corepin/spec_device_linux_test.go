package main

import (
	"regexp"
	"strconv"
	"testing"

	"corepin.dev/corepin/internal/testcpu"
)

// On a device, spec config is the device's: its CPUs, and the corepin
// pushed there, which runcpu on the device starts.
func TestSpecConfigOnDevice(t *testing.T) {
	l := newPhoneLab(t)
	// The fake device is this machine: a CPU this process may use.
	cpu := strconv.Itoa(testcpu.Usable(t).CPUs()[0])
	r := l.corepin(t, t.TempDir(), "--on", "adb:FAKE01", "spec", "config", "--cpu", cpu)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^   submit2 = /data/local/tmp/corepin-[0-9a-f]+ exec -q --cpu \$BIND `).MatchString(r.stdout) {
		t.Errorf("the fragment does not name the corepin pushed to the device:\n%s", r.stdout)
	}
}
