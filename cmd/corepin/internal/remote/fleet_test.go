package remote

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
)

// TestFleetWorstStatusAndPrefixes: with several targets each line says
// its target, every run brought back is told and named, a failure here
// counts as 1, and the worst status wins.
func TestFleetWorstStatusAndPrefixes(t *testing.T) {
	var out, errs bytes.Buffer
	var mu sync.Mutex
	var pulled []string
	f := &Fleet{Specs: []string{"a", "b", "c"}, Stdout: &out, Stderr: &errs, Pulled: func(p string, _ io.Writer) {
		mu.Lock()
		defer mu.Unlock()
		pulled = append(pulled, p)
	}}
	worst := f.Run(context.Background(), Request{}, func(_ context.Context, spec string, r Request) (Outcome, error) {
		io.WriteString(r.Stdout, "hello from "+spec+"\n")
		switch spec {
		case "a":
			return Outcome{Status: 0, Pulled: []string{"lab/a"}}, nil
		case "b":
			return Outcome{Status: 3}, nil
		}
		return Outcome{Status: -1}, errors.New("unreachable")
	})
	if worst != 3 {
		t.Errorf("worst status %d, want 3", worst)
	}
	for _, want := range []string{"[a] hello from a\n", "[b] hello from b\n", "[c] hello from c\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout %q lacks %q", out.String(), want)
		}
	}
	for _, want := range []string{"[a] corepin: pulled lab/a\n", "[c] corepin: unreachable\n"} {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("stderr %q lacks %q", errs.String(), want)
		}
	}
	if len(pulled) != 1 || pulled[0] != "lab/a" {
		t.Errorf("pulled %q", pulled)
	}
	one := &Fleet{Specs: []string{"c"}, Stdout: &out, Stderr: &errs}
	if worst := one.Run(context.Background(), Request{}, func(context.Context, string, Request) (Outcome, error) {
		return Outcome{}, errors.New("gone")
	}); worst != 1 {
		t.Errorf("a failure here: status %d, want 1", worst)
	}
}

// TestOutputChecksHere: an output the device writes is checked here
// first, as the command checks it, and a folder is no file.
func TestOutputChecksHere(t *testing.T) {
	dir := t.TempDir()
	var r Request
	if _, err := r.Output(dir, "file"); err == nil {
		t.Errorf("a folder was taken for a file")
	}
	if p, err := r.Output(dir+"/sched.json", "file"); err != nil || p != JobDir+"/out/sched.json" || r.Into["sched.json"] != dir {
		t.Errorf("a file: %q, %v, into %v", p, err, r.Into)
	}
}

func TestIdentityEnv(t *testing.T) {
	got := IdentityEnv("COREPIN_DEVICE")(&Device{Identity: Identity{On: "adb", Serial: "X1"}})
	if len(got) != 1 || !strings.HasPrefix(got[0], `COREPIN_DEVICE={"on":"adb","serial":"X1"`) {
		t.Errorf("env %q", got)
	}
}

func TestCheckFindsAWrongSpec(t *testing.T) {
	if err := Check([]string{"adb", "hdc:KEY1"}); err != nil {
		t.Errorf("right specs: %v", err)
	}
	if err := Check([]string{"adb", "telnet://x"}); err == nil || !strings.Contains(err.Error(), `target "telnet://x"`) {
		t.Errorf("a wrong spec: %v", err)
	}
	// One device named twice would run the job twice on it at once.
	if err := Check([]string{"adb:P1", "hdc:P1", "adb:P1"}); err == nil || err.Error() != `target "adb:P1" is given twice: name each device once` {
		t.Errorf("adb:P1 twice: %v", err)
	}
}
