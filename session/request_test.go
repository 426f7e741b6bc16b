package session

import (
	"encoding/json"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

func TestRequestMaskAndRule(t *testing.T) {
	group := cpuset.Of(2, 3)
	for _, tt := range []struct {
		req  Request
		mask string
		rule string
	}{
		{Request{CPU: 3}, "3", "exact"},
		{Request{CPU: 3, Group: group}, "3", "exact"},
		{Request{CPU: 3, Group: group, Mode: evidence.Soft}, "2-3", "soft"},
		{Request{CPU: 3, Mode: evidence.Soft}, "3", "soft"},
		{Request{CPU: 3, Mode: evidence.Soft, Accept: AnyRule()}, "3", "any"},
	} {
		if got := tt.req.Mask().String(); got != tt.mask {
			t.Errorf("%+v: Mask = %s, want %s", tt.req, got, tt.mask)
		}
		if got := tt.req.Rule().String(); got != tt.rule {
			t.Errorf("%+v: Rule = %s, want %s", tt.req, got, tt.rule)
		}
	}
	for _, bad := range []Request{{CPU: -1}, {Mode: "strict"}, {Ladder: CustomLadder(nil, 0, nice(40), nil)}} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}

// Begin uses the mode's rule when none is given, as every starter does.
func TestBeginDefaultsToTheModesRule(t *testing.T) {
	requireLinux(t)
	rep, err := Run(Request{CPU: lastCPU(), Ladder: AffinityOnly()}, func(*Session) error { return nil })
	if err != nil && !strings.Contains(err.Error(), "not accepted") {
		t.Fatal(err)
	}
	if rep.Accept.Rule != "exact" {
		t.Errorf("rule %q, want exact (the mode's)", rep.Accept.Rule)
	}
}

// The request travels as JSON (to the launcher); the rule with it.
func TestRequestJSONRoundTrip(t *testing.T) {
	level := qos.UserInteractive
	rule, err := ParseRule("soft+qos=user-interactive+step<=2")
	if err != nil {
		t.Fatal(err)
	}
	req := Request{CPU: 2, Group: cpuset.Of(2, 3), Mode: evidence.Soft, Ladder: QoSLadder(level), AllowRealtime: true, QoS: &level, Accept: rule}
	data, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var back Request
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if string(again) != string(data) || back.Rule().String() != rule.String() || back.Ladder.Len() != req.Ladder.Len() {
		t.Errorf("round trip:\n%s\n%s", data, again)
	}
	var none Request
	if err := json.Unmarshal([]byte(`{"cpu":1,"accept":""}`), &none); err != nil || !none.Accept.IsZero() || none.Rule().String() != "exact" {
		t.Errorf("an empty rule reads as %v, %v", none.Accept, err)
	}
	if err := json.Unmarshal([]byte(`{"accept":"strict"}`), &none); err == nil {
		t.Error("a bad rule was read")
	}
}

// A ladder is a value: copying it and changing the copy's steps leaves the
// original, and the named ladder, unchanged.
func TestCopiedLadderIsIndependent(t *testing.T) {
	orig := GeekbenchLadder()
	want := orig.Step(1).String()
	cp := orig
	steps := cp.Steps()
	*steps[1].Nice = 19
	steps[1].Uclamp.Min = 0
	steps[1].Priority = 7
	if got := orig.Step(1).String(); got != want {
		t.Errorf("editing a copy's step changed the original: %s, was %s", got, want)
	}
	if got := GeekbenchLadder().Step(1).String(); got != want {
		t.Errorf("editing a copy's step changed the named ladder: %s, was %s", got, want)
	}
	p := sched.FIFO
	n := -3
	custom := CustomLadder(&p, 5, &n, nil)
	p, n = sched.Idle, 10
	if got := custom.Step(0).String(); got != "fifo:5 + nice -3" {
		t.Errorf("a custom ladder follows its arguments: %s", got)
	}
}

func TestParseRuleDefects(t *testing.T) {
	// The reason must say what is wrong, not "<nil>".
	_, err := ParseRule("exact+qos<=user-interactive")
	if err == nil || strings.Contains(err.Error(), "<nil>") || !strings.Contains(err.Error(), "qos=LEVEL") {
		t.Errorf("qos<= : %v", err)
	}
	// A policy that no read-back can have is refused, not accepted to fail
	// later.
	if _, err := ParseRule("any+policy=bogus"); err == nil {
		t.Error("any+policy=bogus was accepted")
	}
	r, err := ParseRule("any+policy=normal")
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := r.Check(&evidence.Session{Readback: evidence.Readback{Policy: "other"}}); !ok {
		t.Errorf("policy=normal refused a SCHED_OTHER read-back: %s", why)
	}
}

func TestQoSMismatchSaysWhatWasReadBack(t *testing.T) {
	r, err := ParseRule("any+qos=user-interactive")
	if err != nil {
		t.Fatal(err)
	}
	bg := "background"
	ok, why := r.Check(&evidence.Session{Readback: evidence.Readback{QoS: &bg}})
	if ok || !strings.Contains(why, "reads back as background") {
		t.Errorf("QoS background against user-interactive: %v %q", ok, why)
	}
	ok, why = r.Check(&evidence.Session{})
	if ok || !strings.Contains(why, "unknown") {
		t.Errorf("no QoS read-back: %v %q", ok, why)
	}
}

func TestParseClamp(t *testing.T) {
	if c, err := ParseClamp("512:1024"); err != nil || c != (Clamp{512, 1024}) {
		t.Errorf("512:1024 = %v, %v", c, err)
	}
	for _, bad := range []string{"", "512", "a:b", "900:800", "0:2000"} {
		if _, err := ParseClamp(bad); err == nil {
			t.Errorf("ParseClamp(%q) succeeded", bad)
		}
	}
}
