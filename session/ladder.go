package session

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/sched"
)

// Step is one rung of a ladder: a set of scheduling attributes asked for
// together. A nil Policy keeps the thread's current policy and parameters
// (only the nice value or uclamp of the step are asked for).
type Step struct {
	Policy   *sched.Policy `json:"policy,omitempty"`
	Priority int           `json:"priority,omitempty"` // for FIFO and RR
	Nice     *int          `json:"nice,omitempty"`
	Uclamp   *Clamp        `json:"uclamp,omitempty"`
}

// Clamp is a uclamp request, 0..1024 each.
type Clamp struct {
	Min uint32 `json:"min"`
	Max uint32 `json:"max"`
}

// Realtime reports whether the step asks for FIFO or RR.
func (s Step) Realtime() bool { return s.Policy != nil && s.Policy.Realtime() }

func (s Step) String() string {
	var parts []string
	switch {
	case s.Policy != nil && s.Policy.Realtime():
		parts = append(parts, fmt.Sprintf("%s:%d", s.Policy, s.Priority))
	case s.Policy != nil:
		parts = append(parts, s.Policy.String())
	}
	if s.Nice != nil {
		parts = append(parts, fmt.Sprintf("nice %d", *s.Nice))
	}
	if s.Policy == nil && s.Nice == nil && s.Uclamp != nil {
		parts = append(parts, "keep policy")
	}
	if s.Uclamp != nil {
		parts = append(parts, fmt.Sprintf("uclamp %d/%d", s.Uclamp.Min, s.Uclamp.Max))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " + ")
}

// Ladder is an ordered list of steps: the first whose read-back matches is
// accepted and the rest are not tried. A Ladder is a value: its steps can
// only be read as copies (Steps), so copying a ladder and changing what the
// copy returns never changes the original, nor the named ladders.
type Ladder struct {
	name  string
	steps []Step
}

// NewLadder makes a ladder of copies of the given steps.
func NewLadder(name string, steps ...Step) Ladder {
	l := Ladder{name: name}
	for _, s := range steps {
		l.steps = append(l.steps, s.clone())
	}
	return l
}

// Name is the ladder's name, as reports show it.
func (l Ladder) Name() string { return l.name }

// Len is the number of steps.
func (l Ladder) Len() int { return len(l.steps) }

// Steps returns copies of the steps, in order.
func (l Ladder) Steps() []Step {
	out := make([]Step, len(l.steps))
	for i, s := range l.steps {
		out[i] = s.clone()
	}
	return out
}

// Step returns a copy of step i (0-based).
func (l Ladder) Step(i int) Step { return l.steps[i].clone() }

// ladderJSON is how a ladder travels (to the launcher) and is recorded.
type ladderJSON struct {
	Name  string `json:"name"`
	Steps []Step `json:"steps"`
}

// MarshalJSON writes {"name": ..., "steps": [...]}.
func (l Ladder) MarshalJSON() ([]byte, error) {
	return json.Marshal(ladderJSON{Name: l.name, Steps: l.steps})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (l *Ladder) UnmarshalJSON(b []byte) error {
	var j ladderJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*l = Ladder{name: j.Name, steps: j.Steps}
	return nil
}

// clone copies the step and what its pointers point to.
func (s Step) clone() Step {
	if s.Policy != nil {
		p := *s.Policy
		s.Policy = &p
	}
	if s.Nice != nil {
		n := *s.Nice
		s.Nice = &n
	}
	if s.Uclamp != nil {
		c := *s.Uclamp
		s.Uclamp = &c
	}
	return s
}

func policy(p sched.Policy) *sched.Policy { return &p }
func nice(n int) *int                     { return &n }
func top() *Clamp                         { return &Clamp{Min: sched.UclampMax, Max: sched.UclampMax} }

// GeekbenchLadder is FIFO 1 + uclamp (only with realtime allowed), then
// normal nice -20 + uclamp, then keep the policy with uclamp only, then
// nice -20 alone for kernels without uclamp.
func GeekbenchLadder() Ladder {
	return Ladder{name: "geekbench", steps: []Step{
		{Policy: policy(sched.FIFO), Priority: 1, Uclamp: top()},
		{Policy: policy(sched.Normal), Nice: nice(-20), Uclamp: top()},
		{Uclamp: top()},
		{Nice: nice(-20)},
	}}
}

// SPECLadder is FIFO 1 + uclamp, then normal nice -20 + uclamp, then FIFO
// 1 alone.
func SPECLadder() Ladder {
	return Ladder{name: "spec", steps: []Step{
		{Policy: policy(sched.FIFO), Priority: 1, Uclamp: top()},
		{Policy: policy(sched.Normal), Nice: nice(-20), Uclamp: top()},
		{Policy: policy(sched.FIFO), Priority: 1},
	}}
}

// AffinityOnly is the empty ladder, named "none": only the affinity is
// asked for.
func AffinityOnly() Ladder { return Ladder{name: "none"} }

// NamedLadder returns a ladder by name: geekbench, spec or none.
func NamedLadder(name string) (Ladder, error) {
	switch name {
	case "geekbench", "":
		return GeekbenchLadder(), nil
	case "spec":
		return SPECLadder(), nil
	case "none":
		return AffinityOnly(), nil
	}
	return Ladder{}, fmt.Errorf("unknown ladder %q (want geekbench, spec or none)", name)
}

// QoSLadder is the ladder of a QoS level on a kernel without a QoS node:
// the level's setting, then the same without uclamp.
func QoSLadder(l qos.Level) Ladder {
	s := l.Linux()
	step := Step{Policy: policy(s.Policy), Nice: nice(s.Nice)}
	ladder := Ladder{name: "qos:" + l.String()}
	if s.Uclamp {
		withClamp := step.clone()
		withClamp.Uclamp = &Clamp{Min: s.UclampMin, Max: s.UclampMax}
		ladder.steps = append(ladder.steps, withClamp)
	}
	ladder.steps = append(ladder.steps, step)
	return ladder
}

// CustomLadder is a one-step ladder of exactly what was asked for on the
// command line. Any of its arguments may be nil.
func CustomLadder(p *sched.Policy, priority int, n *int, c *Clamp) Ladder {
	return NewLadder("custom", Step{Policy: p, Priority: priority, Nice: n, Uclamp: c})
}

// ParseClamp reads a uclamp request written MIN:MAX, each 0..1024.
func ParseClamp(s string) (Clamp, error) {
	loText, hiText, ok := strings.Cut(s, ":")
	lo, err1 := strconv.ParseUint(strings.TrimSpace(loText), 10, 32)
	hi, err2 := strconv.ParseUint(strings.TrimSpace(hiText), 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return Clamp{}, fmt.Errorf("uclamp %q: want MIN:MAX", s)
	}
	c := Clamp{Min: uint32(lo), Max: uint32(hi)}
	if c.Min > c.Max || c.Max > sched.UclampMax {
		return Clamp{}, fmt.Errorf("uclamp %q: must satisfy min <= max <= 1024", s)
	}
	return c, nil
}

// Attr is the policy, priority and nice value the step asks for, as a
// watcher keeps them: SCHED_OTHER where the step keeps the policy.
func (s Step) Attr() sched.Attr {
	a := sched.Attr{Policy: sched.Normal}
	if s.Policy != nil {
		a.Policy, a.Priority = *s.Policy, s.Priority
	}
	if s.Nice != nil {
		a.Nice = *s.Nice
	}
	return a
}

// Validate checks the steps before anything is asked of the kernel.
func (l Ladder) Validate() error {
	for i, s := range l.steps {
		switch {
		case s.Policy != nil && s.Policy.Realtime() && (s.Priority < 1 || s.Priority > 99):
			return fmt.Errorf("ladder %s step %d: %s needs a priority from 1 to 99", l.name, i+1, s.Policy)
		case s.Policy != nil && !s.Policy.Realtime() && s.Priority != 0:
			return fmt.Errorf("ladder %s step %d: a priority can only be given with fifo or rr", l.name, i+1)
		case s.Policy != nil && *s.Policy == sched.Deadline:
			return fmt.Errorf("ladder %s step %d: deadline needs the full affinity mask and cannot pin", l.name, i+1)
		case s.Nice != nil && (*s.Nice < -20 || *s.Nice > 19):
			return fmt.Errorf("ladder %s step %d: nice %d is outside -20..19", l.name, i+1, *s.Nice)
		case s.Uclamp != nil && (s.Uclamp.Min > s.Uclamp.Max || s.Uclamp.Max > sched.UclampMax):
			return fmt.Errorf("ladder %s step %d: uclamp %d:%d must satisfy min <= max <= 1024", l.name, i+1, s.Uclamp.Min, s.Uclamp.Max)
		}
	}
	return nil
}
