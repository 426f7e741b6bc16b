package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"corepin.dev/corepin/topology"
)

// corepin keeps to the CPUs it inherited: started under taskset -c IN (as
// Slurm's task/affinity starts a task), exec and run refuse --cpu OUT with
// exit 2 and the mask in the reason, although the kernel would let corepin
// widen its mask to OUT, which lies in its cpuset (and where no cpuset can
// be read, saying so); --cpu IN still runs.
// IN and OUT come from what corepin reads of this process, never from the
// CPU count: the tests may themselves run under taskset.
func TestRefusesCPUsOutsideTheInheritedMask(t *testing.T) {
	t.Parallel()
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("needs taskset (util-linux)")
	}
	topo, err := topology.Read("/")
	if err != nil {
		t.Fatal(err)
	}
	in := topo.Usable().CPUs()[0]
	out := -1
	for _, id := range topo.Online.CPUs() {
		if id != in && !topo.Isolated.Contains(id) && (topo.Cpuset == nil || topo.Cpuset.Contains(id)) {
			out = id
			break
		}
	}
	if out < 0 {
		t.Skipf("needs a second online CPU in this process's cpuset besides CPU %d (online %s)", in, topo.Online)
	}
	exe, _ := os.Executable()
	under := func(args ...string) (string, int) {
		cmd := exec.Command(taskset, append([]string{"-c", strconv.Itoa(in), exe}, args...)...)
		cmd.Env = append(os.Environ(), "COREPIN_AS_CLI=1")
		b, _ := cmd.CombinedOutput()
		return string(b), cmd.ProcessState.ExitCode()
	}
	reason := "CPU " + strconv.Itoa(out) + " is outside the CPUs this process inherited, " + strconv.Itoa(in)
	if topo.Cpuset == nil {
		// No cpuset to read (no cgroup file system mounted): the mask is
		// all corepin knows, and the refusal says so.
		reason = "CPU " + strconv.Itoa(out) + " is outside the mask this process inherited " + strconv.Itoa(in)
	}
	for _, args := range [][]string{
		{"exec", "--cpu", strconv.Itoa(out), "--", "true"},
		{"exec", "--cpus", strconv.Itoa(out), "--", "true"},
		{"run", "--quick", "--only", "fib", "--runs", "1", "--cpu", strconv.Itoa(out), "--out", t.TempDir()},
	} {
		text, code := under(args...)
		if code != exitUsage || !strings.Contains(text, reason) {
			t.Errorf("taskset -c %d corepin %s: exit %d, want %d and %q:\n%s", in, strings.Join(args, " "), code, exitUsage, reason, text)
		}
	}
	if text, code := under("exec", "-q", "--cpu", strconv.Itoa(in), "--", "grep", "Cpus_allowed_list", "/proc/self/status"); code != 0 || !strings.Contains(text, "\t"+strconv.Itoa(in)+"\n") {
		t.Errorf("taskset -c %d corepin exec --cpu %d: exit %d:\n%s", in, in, code, text)
	}
}
