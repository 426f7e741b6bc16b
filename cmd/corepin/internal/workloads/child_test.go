package workloads

import (
	"bytes"
	"slices"
	"testing"
)

// The child takes its name before or after the size, answers with a
// result the parent reads, and refuses what it cannot run with a usage
// status.
func TestChildMain(t *testing.T) {
	for _, args := range [][]string{ChildArgs("fib", Quick)[1:], {"--size=quick", "fib"}} {
		var out, errOut bytes.Buffer
		if code := ChildMain(args, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		res, err := ReadChildResult(out.Bytes())
		if err != nil || !res.Valid || res.Seconds <= 0 {
			t.Errorf("%v printed %q: %+v, %v", args, out.String(), res, err)
		}
	}
	for _, args := range [][]string{{}, {"nope"}, {"fib", "fib"}, {"fib", "--bogus"}, {"fib", "--size", "huge"}} {
		var out, errOut bytes.Buffer
		if code := ChildMain(args, &out, &errOut); code == 0 || out.Len() != 0 {
			t.Errorf("%v: exit %d, printed %q; want a failure and no result", args, code, out.String())
		}
	}
}

func TestChildArgs(t *testing.T) {
	if got, want := ChildArgs("lbm", Full), []string{ChildCommand, "lbm", "--size", "full"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := ReadChildResult([]byte("not json")); err == nil {
		t.Error("read a result from text that is none")
	}
}
