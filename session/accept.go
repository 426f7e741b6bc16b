package session

import (
	"fmt"
	"strconv"
	"strings"

	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// Rule decides from a report whether the work may run: a base rule and any
// number of further requirements, written "exact", "soft",
// "any+uclamp-min>=1024", "soft+qos=user-interactive+step<=2". The zero
// Rule is no rule: a Request without one uses its mode's.
type Rule struct {
	base string        // exact, soft or any
	reqs []requirement // all must hold
}

// ExactRule holds when the capture is complete and the thread reads back
// exactly on its one target CPU.
func ExactRule() Rule { return Rule{base: "exact"} }

// SoftRule holds when the thread is on the target group, and a ladder that
// was given found a step that held.
func SoftRule() Rule { return Rule{base: "soft"} }

// AnyRule accepts whatever the kernel allowed; the report still says what
// that was.
func AnyRule() Rule { return Rule{base: "any"} }

// IsZero reports whether the rule is the zero Rule, which is no rule.
func (r Rule) IsZero() bool { return r.base == "" }

// Base is the rule's first part: exact, soft or any ("" for no rule).
func (r Rule) Base() string { return r.base }

type requirement struct {
	key, op, value string
}

// ParseRule reads a rule.
func ParseRule(text string) (Rule, error) {
	parts := strings.Split(strings.TrimSpace(text), "+")
	r := Rule{base: strings.TrimSpace(parts[0])}
	switch r.base {
	case "exact", "soft", "any":
	default:
		return Rule{}, fmt.Errorf("acceptance rule %q: the first part must be exact, soft or any", text)
	}
	for _, p := range parts[1:] {
		req, err := parseRequirement(strings.TrimSpace(p))
		if err != nil {
			return Rule{}, fmt.Errorf("acceptance rule %q: %w", text, err)
		}
		r.reqs = append(r.reqs, req)
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
			if op != "=" {
				return req, fmt.Errorf("want qos=LEVEL, have qos%s%s", op, value)
			}
			if _, err := qos.Parse(value); err != nil {
				return req, fmt.Errorf("qos=%s: %w", value, err)
			}
		case "policy":
			if op != "=" {
				return req, fmt.Errorf("want policy=NAME, have policy%s%s", op, value)
			}
			// The read-back is compared by name, so the name must be one
			// a read-back can have: the policy's own spelling.
			p, err := sched.ParsePolicy(value)
			if err != nil {
				return req, fmt.Errorf("policy=%s: %w", value, err)
			}
			req.value = p.String()
		default:
			return req, fmt.Errorf("unknown requirement %q (uclamp-min, uclamp-max, step, nice, qos, policy)", key)
		}
		return req, nil
	}
	return requirement{}, fmt.Errorf("requirement %q has no =, <= or >=", p)
}

func (r Rule) String() string {
	s := r.base
	for _, q := range r.reqs {
		s += "+" + q.key + q.op + q.value
	}
	return s
}

// MarshalText writes the rule as ParseRule reads it ("" for no rule).
func (r Rule) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a rule; "" is no rule.
func (r *Rule) UnmarshalText(b []byte) error {
	if len(strings.TrimSpace(string(b))) == 0 {
		*r = Rule{}
		return nil
	}
	q, err := ParseRule(string(b))
	if err != nil {
		return err
	}
	*r = q
	return nil
}

// Check applies the rule to a report and says why it holds or not.
func (r Rule) Check(rep *evidence.Session) (bool, string) {
	rb := rep.Readback
	switch r.base {
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
	for _, q := range r.reqs {
		if ok, why := q.check(rep); !ok {
			return false, why
		}
	}
	return true, r.summary(rep)
}

func (r Rule) summary(rep *evidence.Session) string {
	rb := rep.Readback
	s := fmt.Sprintf("%s: on CPU %d with mask %s, %s", r.base, rb.CPU, rb.CPUs, rb.PolicyText())
	if rep.Ladder.AcceptedStep > 0 {
		s += fmt.Sprintf(", ladder %s step %d", rep.Ladder.Name, rep.Ladder.AcceptedStep)
	}
	return s
}

func (q requirement) check(rep *evidence.Session) (bool, string) {
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
		if rep.Ladder.AcceptedStep == 0 {
			return false, "no step of ladder " + rep.Ladder.Name + " read back as asked" + firstStepError(rep)
		}
		if !cmpInt(rep.Ladder.AcceptedStep) {
			return fail(fmt.Sprintf("accepted step is %d", rep.Ladder.AcceptedStep))
		}
	case "nice":
		if !cmpInt(rb.Nice) {
			return fail(fmt.Sprintf("nice reads back as %d", rb.Nice))
		}
	case "qos":
		want, _ := qos.Parse(q.value)
		switch {
		case rb.QoS == nil:
			return fail("QoS reads back as unknown")
		case *rb.QoS != want.String():
			return fail("QoS reads back as " + *rb.QoS)
		}
	case "policy":
		if rb.Policy.String() != q.value {
			return fail("policy reads back as " + rb.Policy.String())
		}
	}
	return true, ""
}

// firstStepError is ": STEP: WHY" for the first step that was tried and
// failed, so that a refusal says what the kernel answered.
func firstStepError(rep *evidence.Session) string {
	for _, st := range rep.Ladder.Steps {
		why := st.Error
		if st.Errno != "" {
			why = st.Errno.String() + " (" + st.Error + ")"
		}
		if why == "" {
			why = st.Mismatch
		}
		if st.Skipped == "" && why != "" {
			return ": " + st.Asked + ": " + why
		}
	}
	return ""
}
