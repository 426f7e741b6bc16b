package runner

import (
	"os"
	"os/exec"
	"testing"

	"corepin.dev/corepin/cmd/corepin/internal/workloads"
	"corepin.dev/corepin/launch"
)

// The test binary, as corepin, answers the workload child's verb with a
// result the runner reads, and launch's own verbs through the same table.
func TestDispatchRunsTheWorkloadChild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe, workloads.ChildArgs("fib", workloads.Quick)...).Output()
	if err != nil {
		t.Fatalf("the test binary as %s: %v", WorkloadCommand, err)
	}
	if res, err := workloads.ReadChildResult(out); err != nil || !res.Valid {
		t.Errorf("the workload child printed %q: %+v, %v", out, res, err)
	}
	for _, v := range launch.Verbs() {
		if !IsVerb(v.Name) {
			t.Errorf("launch's verb %s is not one of corepin's", v.Name)
		}
	}
	if !IsVerb(WorkloadCommand) || IsVerb("run") {
		t.Errorf("IsVerb(%q) %v, IsVerb(run) %v", WorkloadCommand, IsVerb(WorkloadCommand), IsVerb("run"))
	}
}
