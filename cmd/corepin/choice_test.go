package main

import (
	"errors"
	"strconv"
	"testing"

	"corepin.dev/corepin/topology"
)

// TestChoiceSet: what --cpu and --cpus name, and what they cannot, each
// a wrongChoice (a wrong command line).
func TestChoiceSet(t *testing.T) {
	three, minus, huge, list, empty, bad := 3, -1, 1<<20, "4-7", "", "3-1"
	if s, err := (targetChoice{CPU: &three}).Set(); err != nil || s.String() != "3" {
		t.Errorf("--cpu 3: %v, %v", s, err)
	}
	if s, err := (targetChoice{CPUs: &list}).Set(); err != nil || s.Len() != 4 {
		t.Errorf("--cpus 4-7: %v, %v", s, err)
	}
	if s, err := (targetChoice{Target: "prime"}).Set(); err != nil || !s.IsEmpty() {
		t.Errorf("no number: %v, %v", s, err)
	}
	for _, c := range []targetChoice{{CPU: &three, CPUs: &list}, {CPU: &minus}, {CPU: &huge}, {CPUs: &empty}, {CPUs: &bad}} {
		var ce *wrongChoice
		if _, err := c.Set(); !errors.As(err, &ce) {
			t.Errorf("%+v: %v, want a wrongChoice", c, err)
		}
	}
}

// TestChoiceMeasured: CPUs given by number are measured as given, without
// reading the machine; otherwise the target's exact CPU, as Resolve
// selects it on this machine.
func TestChoiceMeasured(t *testing.T) {
	list := "4-7"
	if s, err := (targetChoice{CPUs: &list}).Measured("/nonexistent"); err != nil || s.String() != "4-7" {
		t.Errorf("--cpus 4-7: %v, %v", s, err)
	}
	c := targetChoice{Target: "prime"}
	_, target, err := c.Resolve("/")
	if err != nil {
		t.Skipf("this machine's topology cannot be read: %v", err)
	}
	if s, err := c.Measured("/"); err != nil || s.String() != strconv.Itoa(target.ExactCPU) {
		t.Errorf("prime: %v, %v, want CPU %d", s, err, target.ExactCPU)
	}
}

// TestChoiceUnmet: several CPUs for work that runs on one are named with
// the CPU chosen; one CPU, soft mode, or a target by number are met.
func TestChoiceUnmet(t *testing.T) {
	list, one := "4-7", "4"
	target := topology.Target{ExactCPU: 4}
	if why := (targetChoice{CPUs: &list}).Unmet("/", target, true); why != "--cpus 4-7 names 4 CPUs but exact mode runs on one; CPU 4 was chosen (--mode soft uses them all, --accept any runs on CPU 4)" {
		t.Errorf("--cpus 4-7, exact: %q", why)
	}
	for _, c := range []struct {
		choice targetChoice
		exact  bool
	}{{targetChoice{CPUs: &list}, false}, {targetChoice{CPUs: &one}, true}, {targetChoice{Target: "prime"}, true}} {
		if why := c.choice.Unmet("/", target, c.exact); why != "" {
			t.Errorf("%+v (exact %v): %q, want it met", c.choice, c.exact, why)
		}
	}
}
