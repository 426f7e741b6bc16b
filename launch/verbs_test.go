package launch

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"corepin.dev/corepin/workloads"
)

// The workload verb takes its name before or after the size, and refuses
// what it cannot run with a usage status.
func TestWorkloadVerb(t *testing.T) {
	for _, args := range [][]string{{"fib", "--size", "quick"}, {"--size=quick", "fib"}} {
		var out, errOut bytes.Buffer
		if code := runWorkload(args, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		var res workloads.Result
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || !res.Valid {
			t.Errorf("%v printed %q: %v", args, out.String(), err)
		}
	}
	for _, args := range [][]string{{}, {"nope"}, {"fib", "fib"}, {"fib", "--bogus"}} {
		var out, errOut bytes.Buffer
		if code := runWorkload(args, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", args, code)
		}
	}
}

// The test binary answers the same verbs as corepin, through the same
// table.
func TestDispatchRunsTheVerb(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe, WorkloadArg, "fib", "--size", "quick").Output()
	if err != nil || !strings.Contains(string(out), `"valid":true`) {
		t.Errorf("the test binary as %s: %q, %v", WorkloadArg, out, err)
	}
	names := map[string]bool{}
	for _, v := range Verbs() {
		if names[v.Name] {
			t.Errorf("verb %q listed twice", v.Name)
		}
		names[v.Name] = true
	}
}
