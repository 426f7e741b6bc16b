package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// echoVerb stands for a verb a program adds to launch's own: it prints
// its arguments and exits 3.
var echoVerb = Verb{Name: "__corepin-test-echo", Main: func(args []string) int {
	fmt.Println(strings.Join(args, " "))
	return 3
}}

// The test binary answers launch's verbs and the ones added to them,
// through the same table, and a verb is listed once.
func TestDispatchRunsTheVerb(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe, echoVerb.Name, "a", "b").Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || string(out) != "a b\n" {
		t.Errorf("the test binary as %s: %q, %v; want \"a b\" and exit 3", echoVerb.Name, out, err)
	}
	if !IsVerb(Arg) || !IsVerb(echoVerb.Name, echoVerb) || IsVerb(echoVerb.Name) || IsVerb("workload") {
		t.Error("IsVerb does not answer for launch's verbs and the added ones alone")
	}
	names := map[string]bool{}
	for _, v := range Verbs() {
		if names[v.Name] {
			t.Errorf("verb %q listed twice", v.Name)
		}
		names[v.Name] = true
	}
}
