package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/interrupt"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// corepin runs the command line in-process and returns its output.
func corepin(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runWith(context.Background(), &out, &errOut, args)
	return out.String(), errOut.String(), code
}

// golden compares got with testdata/NAME, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

const phoneRoot = "../../topology/testdata/machines/sgu-al10"

func TestTopoTable(t *testing.T) {
	out, errOut, code := corepin(t, "topo", "--root", phoneRoot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "topo-sgu-al10.txt", out)
}

func TestTopoJSON(t *testing.T) {
	out, errOut, code := corepin(t, "topo", "--root", phoneRoot, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "topo-sgu-al10.json", out)
	// The keys scripts rely on.
	var doc struct {
		CPUs []struct {
			CPU      int      `json:"cpu"`
			Online   bool     `json:"online"`
			Package  *int     `json:"package"`
			Core     *int     `json:"core"`
			Cluster  *int     `json:"cluster"`
			Siblings []int    `json:"siblings"`
			MaxMHz   *float64 `json:"max_mhz"`
			MinMHz   *float64 `json:"min_mhz"`
			Capacity *int     `json:"capacity"`
			Kind     string   `json:"kind"`
		} `json:"cpus"`
		Groups []struct {
			Rank     int      `json:"rank"`
			CPUs     []int    `json:"cpus"`
			MaxMHz   *float64 `json:"max_mhz"`
			Capacity *int     `json:"capacity"`
		} `json:"groups"`
		Target struct {
			ExactCPU int    `json:"exact_cpu"`
			SoftCPUs []int  `json:"soft_cpus"`
			Why      string `json:"why"`
		} `json:"target"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.CPUs[12]
	if c.CPU != 12 || !c.Online || *c.MaxMHz != 2750 || *c.Capacity != 1024 || c.Kind != "performance" || len(c.Siblings) != 2 {
		t.Errorf("CPU 12 = %+v", c)
	}
	if doc.Target.ExactCPU != 12 || len(doc.Target.SoftCPUs) != 2 || doc.Target.Why == "" {
		t.Errorf("target = %+v", doc.Target)
	}
	if doc.Groups[0].Rank != 0 || doc.Groups[0].CPUs[0] != 12 {
		t.Errorf("groups[0] = %+v", doc.Groups[0])
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"topo", "--root", phoneRoot, "--cpu", "99"}, exitUsage, "CPU 99 does not exist"},
		{[]string{"topo", "--root", phoneRoot, "--cpus", "3-1"}, exitUsage, "reversed range"},
		{[]string{"topo", "--root", phoneRoot, "--target", "fastest"}, exitUsage, "unknown target"},
		{[]string{"topo", "--root", "/no/such/dir"}, exitFailure, "not a sysfs tree"},
		{[]string{"topo", "--no-such-flag"}, exitUsage, "unknown flag"},
		{[]string{"topo", "extra"}, exitUsage, "unexpected argument"},
		{[]string{"no-such-command"}, exitUsage, "unknown command"},
		{[]string{"version"}, exitOK, ""},
	}
	for _, tt := range tests {
		_, errOut, code := corepin(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.msg) {
			t.Errorf("corepin %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), code, errOut, tt.code, tt.msg)
		}
	}
}

func TestCompletion(t *testing.T) {
	out, _, code := corepin(t, "completion", "bash")
	if code != 0 || !strings.Contains(out, "corepin") {
		t.Errorf("completion bash: exit %d", code)
	}
}

// Every command runs once the signals are caught (beforeEach): by the
// time the root's hook passes a command line on, none is left to its
// default action.
func TestCommandsRunWithSignalsCaught(t *testing.T) {
	c := interrupt.Catch()
	defer c.Stop()
	root := newRootCmd(nil)
	caught := false
	root.Intercept = beforeEach(c, io.Discard, func(*cli.Invocation) (bool, error) {
		select {
		case <-c.Ready():
			caught = true
		default:
		}
		return true, nil
	})
	for _, line := range [][]string{{"version"}, {"exec", "--replace=false", "--", "true"}} {
		caught = false
		if err := root.Execute(context.Background(), strings.NewReader(""), io.Discard, io.Discard, line); err != nil {
			t.Fatal(err)
		}
		if !caught {
			t.Errorf("corepin %s ran before its signals were caught", strings.Join(line, " "))
		}
	}
}
