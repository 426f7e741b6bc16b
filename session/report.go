package session

import (
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// errnoOf is the errno inside err as the report writes it: its name, or ""
// when err holds none.
func errnoOf(err error) evidence.Errno { return evidence.Errno(sched.ErrnoOf(err).String()) }

// policyOf is a policy as the report writes it: its name.
func policyOf(p sched.Policy) evidence.Policy { return evidence.Policy(p.String()) }
