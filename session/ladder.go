package session

import (
	"fmt"
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
// accepted and the rest are not tried.
type Ladder struct {
	Name  string `json:"name"`
	Steps []Step `json:"steps"`
}

func policy(p sched.Policy) *sched.Policy { return &p }
func nice(n int) *int                     { return &n }

var top = &Clamp{Min: sched.UclampMax, Max: sched.UclampMax}

// The named ladders of the first seed.
var (
	// Geekbench: FIFO 1 + uclamp (only with realtime allowed), then normal
	// nice -20 + uclamp, then keep the policy with uclamp only, then nice
	// -20 alone for kernels without uclamp.
	Geekbench = Ladder{Name: "geekbench", Steps: []Step{
		{Policy: policy(sched.FIFO), Priority: 1, Uclamp: top},
		{Policy: policy(sched.Normal), Nice: nice(-20), Uclamp: top},
		{Uclamp: top},
		{Nice: nice(-20)},
	}}
	// SPEC: FIFO 1 + uclamp, then normal nice -20 + uclamp, then FIFO 1.
	Spec = Ladder{Name: "spec", Steps: []Step{
		{Policy: policy(sched.FIFO), Priority: 1, Uclamp: top},
		{Policy: policy(sched.Normal), Nice: nice(-20), Uclamp: top},
		{Policy: policy(sched.FIFO), Priority: 1},
	}}
	// None asks for affinity only.
	None = Ladder{Name: "none"}
)

// NamedLadder returns a ladder by name: geekbench, spec or none.
func NamedLadder(name string) (Ladder, error) {
	switch name {
	case "geekbench", "":
		return Geekbench, nil
	case "spec":
		return Spec, nil
	case "none":
		return None, nil
	}
	return Ladder{}, fmt.Errorf("unknown ladder %q (want geekbench, spec or none)", name)
}

// QoSLadder is the ladder of a QoS level on a kernel without a QoS node:
// the level's setting, then the same without uclamp.
func QoSLadder(l qos.Level) Ladder {
	s := l.Linux()
	step := Step{Policy: policy(s.Policy), Nice: nice(s.Nice)}
	ladder := Ladder{Name: "qos:" + l.String()}
	if s.Uclamp {
		withClamp := step
		withClamp.Uclamp = &Clamp{Min: s.UclampMin, Max: s.UclampMax}
		ladder.Steps = append(ladder.Steps, withClamp)
	}
	ladder.Steps = append(ladder.Steps, step)
	return ladder
}

// CustomLadder is a one-step ladder of exactly what was asked for on the
// command line. Any of its arguments may be nil.
func CustomLadder(p *sched.Policy, priority int, n *int, c *Clamp) Ladder {
	return Ladder{Name: "custom", Steps: []Step{{Policy: p, Priority: priority, Nice: n, Uclamp: c}}}
}

// Validate checks the steps before anything is asked of the kernel.
func (l Ladder) Validate() error {
	for i, s := range l.Steps {
		switch {
		case s.Policy != nil && s.Policy.Realtime() && (s.Priority < 1 || s.Priority > 99):
			return fmt.Errorf("ladder %s step %d: %s needs a priority from 1 to 99", l.Name, i+1, s.Policy)
		case s.Policy != nil && !s.Policy.Realtime() && s.Priority != 0:
			return fmt.Errorf("ladder %s step %d: a priority can only be given with fifo or rr", l.Name, i+1)
		case s.Policy != nil && *s.Policy == sched.Deadline:
			return fmt.Errorf("ladder %s step %d: deadline needs the full affinity mask and cannot pin", l.Name, i+1)
		case s.Nice != nil && (*s.Nice < -20 || *s.Nice > 19):
			return fmt.Errorf("ladder %s step %d: nice %d is outside -20..19", l.Name, i+1, *s.Nice)
		case s.Uclamp != nil && (s.Uclamp.Min > s.Uclamp.Max || s.Uclamp.Max > sched.UclampMax):
			return fmt.Errorf("ladder %s step %d: uclamp %d:%d must satisfy min <= max <= 1024", l.Name, i+1, s.Uclamp.Min, s.Uclamp.Max)
		}
	}
	return nil
}
