package session

import (
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/results/evidence"
)

// ParseMode reads a mode: exact or soft.
func ParseMode(s string) (evidence.Mode, error) {
	switch m := evidence.Mode(s); m {
	case evidence.Exact, evidence.Soft:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want exact or soft)", s)
}

// Request is where and how the work runs: built once (from the command
// line, or by a program) and carried unchanged by everything that starts or
// watches the work. What follows from it is computed here and nowhere
// else: the mask the work is kept on (Mask) and the rule that decides
// whether it may run (Rule).
type Request struct {
	CPU   int           `json:"cpu"`   // the exact target CPU
	Group cpuset.Set    `json:"group"` // the soft target group; empty means {CPU}
	Mode  evidence.Mode `json:"mode"`  // Exact when empty
	// Ladder is the scheduling attributes to try, in order.
	Ladder Ladder `json:"ladder"`
	// AllowRealtime lets ladder steps ask for FIFO or RR; without it they
	// are recorded as skipped. Realtime threads can starve the machine.
	AllowRealtime bool `json:"allow_realtime"`
	// QoS, when set, is requested on the HarmonyOS QoS node where the
	// kernel has one. Elsewhere use QoSLadder for the level's setting.
	QoS *qos.Level `json:"qos,omitempty"`
	// Accept decides whether the work may run; the zero Rule means the
	// mode's rule (see Rule).
	Accept Rule `json:"accept"`
}

// ModeOrDefault is the request's mode, Exact when none was given.
func (r Request) ModeOrDefault() evidence.Mode {
	if r.Mode == "" {
		return evidence.Exact
	}
	return r.Mode
}

// Mask is the CPU mask the work is asked for and kept on: the group in
// soft mode (when there is one), else the one target CPU. It is corepin's
// only derivation of a mask from a mode.
func (r Request) Mask() cpuset.Set {
	if r.ModeOrDefault() == evidence.Soft && !r.Group.IsEmpty() {
		return r.Group
	}
	return cpuset.Of(r.CPU)
}

// Rule is the acceptance rule that applies: Accept when one was given,
// else the mode's own (ExactRule for exact, SoftRule for soft). It is
// corepin's only default rule.
func (r Request) Rule() Rule {
	if !r.Accept.IsZero() {
		return r.Accept
	}
	if r.ModeOrDefault() == evidence.Soft {
		return SoftRule()
	}
	return ExactRule()
}

// Validate checks the request before anything is asked of the kernel.
func (r Request) Validate() error {
	if _, err := ParseMode(string(r.ModeOrDefault())); err != nil {
		return err
	}
	if r.CPU < 0 {
		return fmt.Errorf("target CPU %d is not a CPU", r.CPU)
	}
	if r.QoS != nil && !r.QoS.Valid() {
		return fmt.Errorf("QoS level %d is not a level", int(*r.QoS))
	}
	return r.Ladder.Validate()
}
