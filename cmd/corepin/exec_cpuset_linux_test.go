package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"corepin.dev/corepin/internal/testcpu"
)

// TestExecSaysItsCpusetRefusesAffinity: a command that fails because its
// own sched_setaffinity to another CPU was refused (EINVAL: the run's
// cpuset holds only the target) is told why in exec's summary.
func TestExecSaysItsCpusetRefusesAffinity(t *testing.T) {
	cpu := requireExec(t)
	needsRunCgroup(t)
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("needs util-linux's taskset")
	}
	other := -1
	for _, c := range testcpu.Usable(t).CPUs() {
		if c != cpu {
			other = c
		}
	}
	if other < 0 {
		t.Skip("needs a second usable CPU to ask for")
	}
	_, errOut, code := corepin(t, "exec", "--cpu", strconv.Itoa(cpu), "--", "sh", "-c", "taskset -p -c "+strconv.Itoa(other)+" $$ >/dev/null 2>&1 || exit 7")
	if code != 7 {
		t.Fatalf("exit %d, want the command's 7 (its taskset refused)\n%s", code, errOut)
	}
	if want := "the run's cpuset held only CPU " + strconv.Itoa(cpu) + ", where a program's own sched_setaffinity to any other CPU is refused with EINVAL"; !strings.Contains(errOut, want) {
		t.Errorf("exec's summary does not say why:\n%s", errOut)
	}
}
