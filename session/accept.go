package session

import (
	"fmt"
	"strconv"
	"strings"

	"corepin.dev/corepin/qos"
)

// Rule decides from a report whether the work may run: a base rule and any
// number of further requirements, written "exact", "soft",
// "any+uclamp-min>=1024", "soft+qos=user-interactive+step<=2".
type Rule struct {
	Base string        // exact, soft or any
	Reqs []requirement // all must hold
}

// The base rules.
var (
	// Exact: the capture is complete and the thread reads back exactly on
	// its one target CPU.
	ExactRule = Rule{Base: "exact"}
	// SoftRule: the thread is on the target group, and a ladder that was
	// given found a step that held.
	SoftRule = Rule{Base: "soft"}
	// Any accepts whatever the kernel allowed; the report still says what
	// that was.
	Any = Rule{Base: "any"}
)

type requirement struct {
	key, op, value string
}

// ParseRule reads a rule.
func ParseRule(text string) (Rule, error) {
	parts := strings.Split(strings.TrimSpace(text), "+")
	r := Rule{Base: strings.TrimSpace(parts[0])}
	switch r.Base {
	case "exact", "soft", "any":
	default:
		return Rule{}, fmt.Errorf("acceptance rule %q: the first part must be exact, soft or any", text)
	}
	for _, p := range parts[1:] {
		req, err := parseRequirement(strings.TrimSpace(p))
		if err != nil {
			return Rule{}, fmt.Errorf("acceptance rule %q: %w", text, err)
		}
		r.Reqs = append(r.Reqs, req)
	}
	return r, nil
}

func parseRequirement(p string) (requirement, error) {
	for _, op := range []string{"<=", ">=", "="} {
		key, value, ok := strings.Cut(p, op)
		if !ok {
			continue
		}
		req := requirement{key: key, op: op, value: value}
		switch key {
		case "uclamp-min", "uclamp-max", "step", "nice":
			if _, err := strconv.Atoi(value); err != nil {
				return req, fmt.Errorf("%s needs a number, have %q", key, value)
			}
		case "qos":
			if _, err := qos.Parse(value); err != nil || op != "=" {
				return req, fmt.Errorf("want qos=LEVEL: %v", err)
			}
		case "policy":
			if op != "=" {
				return req, fmt.Errorf("want policy=NAME")
			}
		default:
			return req, fmt.Errorf("unknown requirement %q (uclamp-min, uclamp-max, step, nice, qos, policy)", key)
		}
		return req, nil
	}
	return requirement{}, fmt.Errorf("requirement %q has no =, <= or >=", p)
}

func (r Rule) String() string {
	s := r.Base
	for _, q := range r.Reqs {
		s += "+" + q.key + q.op + q.value
	}
	return s
}

// Check applies the rule to a report and says why it holds or not.
func (r Rule) Check(rep *Report) (bool, string) {
	rb := rep.Readback
	switch r.Base {
	case "exact":
		if !rep.Capture.Complete {
			return false, "the capture is incomplete: " + strings.Join(rep.Capture.Missing, "; ")
		}
		if !rb.ExactAtReadback {
			return false, fmt.Sprintf("not exact: the mask reads back as %s and the thread is on CPU %d, target CPU %d", rb.CPUs, rb.CPU, rep.Target.CPU)
		}
	case "soft":
		if !rb.InTargetGroup {
			return false, fmt.Sprintf("not on the target group %s: mask %s, CPU %d", rep.Target.CPUs, rb.CPUs, rb.CPU)
		}
		if len(rep.Ladder.Steps) > 0 && rep.Ladder.AcceptedStep == 0 {
			return false, "no step of ladder " + rep.Ladder.Name + " held"
		}
	}
	for _, q := range r.Reqs {
		if ok, why := q.check(rep); !ok {
			return false, why
		}
	}
	return true, r.summary(rep)
}

func (r Rule) summary(rep *Report) string {
	rb := rep.Readback
	s := fmt.Sprintf("%s: on CPU %d with mask %s, %s", r.Base, rb.CPU, rb.CPUs, rb.Policy)
	if rb.Policy.Realtime() {
		s += fmt.Sprintf(":%d", rb.Priority)
	} else {
		s += fmt.Sprintf(" nice %d", rb.Nice)
	}
	if rep.Ladder.AcceptedStep > 0 {
		s += fmt.Sprintf(", ladder %s step %d", rep.Ladder.Name, rep.Ladder.AcceptedStep)
	}
	return s
}

func (q requirement) check(rep *Report) (bool, string) {
	rb := rep.Readback
	fail := func(have string) (bool, string) {
		return false, fmt.Sprintf("requirement %s%s%s not met: %s", q.key, q.op, q.value, have)
	}
	cmpInt := func(have int) bool {
		want, _ := strconv.Atoi(q.value)
		switch q.op {
		case "<=":
			return have <= want
		case ">=":
			return have >= want
		}
		return have == want
	}
	switch q.key {
	case "uclamp-min", "uclamp-max":
		if !rb.Uclamp.Supported {
			return fail("this kernel has no uclamp")
		}
		v := *rb.Uclamp.Min
		if q.key == "uclamp-max" {
			v = *rb.Uclamp.Max
		}
		if !cmpInt(int(v)) {
			return fail(fmt.Sprintf("reads back as %d", v))
		}
	case "step":
		if rep.Ladder.AcceptedStep == 0 || !cmpInt(rep.Ladder.AcceptedStep) {
			return fail(fmt.Sprintf("accepted step is %d", rep.Ladder.AcceptedStep))
		}
	case "nice":
		if !cmpInt(rb.Nice) {
			return fail(fmt.Sprintf("nice reads back as %d", rb.Nice))
		}
	case "qos":
		want, _ := qos.Parse(q.value)
		if rb.QoS == nil || *rb.QoS != want.String() {
			return fail("QoS reads back as unknown")
		}
	case "policy":
		if rb.Policy.String() != q.value {
			return fail("policy reads back as " + rb.Policy.String())
		}
	}
	return true, ""
}
