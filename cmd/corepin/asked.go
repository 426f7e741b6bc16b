package main

import (
	"fmt"

	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// schedAsked is the scheduling a person asks for by name, as a command line
// says it: a ladder, or the attributes of a one-step one, a QoS level, a
// mode and a rule. Its errors name the flags (--mode, --policy...).
type schedAsked struct {
	Ladder      string // a named ladder: geekbench, spec or none
	LadderGiven bool   // Ladder was asked for, not the default
	Policy      string // fifo:PRIO, rr:PRIO, other, batch or idle; "" for none
	Nice        *int
	Uclamp      string // MIN:MAX; "" for none
	QoS         string // a QoS level; "" for none
	Realtime    bool   // the ladder's realtime steps are allowed
	Mode        string
	Accept      string // a rule; "" for the mode's (or, with attributes asked by name, that the one step reads back)
}

// session.Request turns what was asked into the scheduling part of a request.
// Explicit attributes (Policy, Nice, Uclamp) make a one-step custom
// ladder, which must read back unless a rule says otherwise; a QoS level
// alone makes the level's ladder (and asks the HarmonyOS node where there
// is one).
func (a schedAsked) Request() (session.Request, error) {
	var req session.Request
	var err error
	if req.Mode, err = session.ParseMode(a.Mode); err != nil {
		return req, fmt.Errorf("--mode: %w", err)
	}
	if a.Accept != "" {
		if req.Accept, err = session.ParseRule(a.Accept); err != nil {
			return req, err
		}
	}
	if a.QoS != "" {
		l, err := qos.Parse(a.QoS)
		if err != nil {
			return req, fmt.Errorf("--qos: %w", err)
		}
		req.QoS = &l
	}
	req.AllowRealtime = a.Realtime
	custom := a.Policy != "" || a.Nice != nil || a.Uclamp != ""
	if custom && a.LadderGiven {
		return req, fmt.Errorf("--ladder cannot be combined with --policy, --nice or --uclamp")
	}
	switch {
	case custom:
		var p *sched.Policy
		prio := 0
		if a.Policy != "" {
			pol, pr, err := sched.ParsePolicyPriority(a.Policy)
			if err != nil {
				return req, fmt.Errorf("--policy: %w", err)
			}
			// Ladders try realtime only when allowed; asking for it by
			// name is that permission.
			req.AllowRealtime = req.AllowRealtime || pol.Realtime()
			p, prio = &pol, pr
		}
		var c *session.Clamp
		if a.Uclamp != "" {
			clamp, err := session.ParseClamp(a.Uclamp)
			if err != nil {
				return req, fmt.Errorf("--uclamp: %w", err)
			}
			c = &clamp
		}
		req.Ladder = session.CustomLadder(p, prio, a.Nice, c)
		if a.Accept == "" {
			// Attributes asked for by name: the one step must read
			// back, or nothing runs.
			if req.Accept, err = session.ParseRule(string(req.ModeOrDefault()) + "+step<=1"); err != nil {
				return req, err
			}
		}
	case req.QoS != nil && !a.LadderGiven:
		req.Ladder = session.QoSLadder(*req.QoS)
	default:
		if req.Ladder, err = session.NamedLadder(a.Ladder); err != nil {
			return req, fmt.Errorf("--ladder: %w", err)
		}
	}
	return req, req.Ladder.Validate()
}
