package main

import (
	"strings"
	"testing"
)

// TestAskedRequest: attributes asked by name make a one-step ladder that
// must read back unless a rule is given; a QoS level alone makes its
// ladder; a wrong value names its flag.
func TestAskedRequest(t *testing.T) {
	nice := -5
	req, err := schedAsked{Ladder: "geekbench", Nice: &nice, Mode: "exact"}.Request()
	if err != nil || req.Ladder.Len() != 1 || req.Accept.String() != "exact+step<=1" {
		t.Errorf("--nice -5: %v, %d steps, rule %q", err, req.Ladder.Len(), req.Accept.String())
	}
	req, err = schedAsked{Ladder: "geekbench", Nice: &nice, Mode: "soft", Accept: "any"}.Request()
	if err != nil || req.Accept.String() != "any" {
		t.Errorf("--nice -5 --accept any: %v, rule %q", err, req.Accept.String())
	}
	req, err = schedAsked{Ladder: "geekbench", Policy: "fifo:10", Mode: "exact"}.Request()
	if err != nil || !req.AllowRealtime {
		t.Errorf("--policy fifo:10: %v, realtime allowed %v", err, req.AllowRealtime)
	}
	if req, err = (schedAsked{Ladder: "geekbench", QoS: "background", Mode: "exact"}).Request(); err != nil || req.QoS == nil || req.Ladder.Name() == "geekbench" {
		t.Errorf("--qos background: %v, ladder %q", err, req.Ladder.Name())
	}
	for _, bad := range []struct {
		a    schedAsked
		says string
	}{
		{schedAsked{Ladder: "spec", LadderGiven: true, Nice: &nice, Mode: "exact"}, "--ladder cannot be combined"},
		{schedAsked{Ladder: "geekbench", Mode: "loose"}, "--mode"},
		{schedAsked{Ladder: "geekbench", Policy: "fast", Mode: "exact"}, "--policy"},
		{schedAsked{Ladder: "geekbench", Uclamp: "9:1", Mode: "exact"}, "--uclamp"},
		{schedAsked{Ladder: "nosuch", Mode: "exact"}, "--ladder"},
	} {
		if _, err := bad.a.Request(); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%+v: %v, want an error naming %s", bad.a, err, bad.says)
		}
	}
}
