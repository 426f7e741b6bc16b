package main

import (
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// exitRefused is the exit code of a request corepin will not run as
// asked, as for a session rule's refusal.
const exitRefused = 125

// explicitRule is the rule for attributes asked for by name (--policy,
// --nice, --uclamp): the one step must read back, or nothing runs. An
// explicit --accept decides instead.
func explicitRule(mode session.Mode) (session.Rule, error) {
	return session.ParseRule(string(mode) + "+step<=1")
}

// refuseUnmet refuses a target asked for by name that the machine cannot
// give as asked, saying what would have been chosen: --target little where
// no core is slower than the others, --cpus with several CPUs in exact
// mode, which runs on one. --accept any runs on the chosen CPU anyway.
func refuseUnmet(tf *targetFlags, req session.Request, target topology.Target) error {
	if req.Accept.Base() == "any" {
		return nil
	}
	refuse := func(format string, a ...any) error {
		return &exitError{code: exitRefused, err: fmt.Errorf(format, a...)}
	}
	if tf.cpu < 0 && !tf.cpus.set && tf.target == "little" && target.Group != nil && *target.Group == 0 && allOnline() {
		return refuse("--target little: no core of this machine is slower than the others; CPU %d of the fastest group was chosen (--accept any runs there)", target.ExactCPU)
	}
	if tf.cpus.set && req.ModeOrDefault() == session.Exact {
		if set, err := cpuset.Parse(tf.cpus.value); err == nil && set.Len() > 1 {
			return refuse("--cpus %s names %d CPUs but exact mode runs on one; CPU %d was chosen (--mode soft uses them all, --accept any runs on CPU %d)", set, set.Len(), target.ExactCPU, target.ExactCPU)
		}
	}
	return nil
}

// allOnline says whether every present CPU is online. A machine whose
// fastest cores went offline runs --target little on what is left: those
// cores are still slower than the machine's own (topology says so).
func allOnline() bool {
	t, err := topology.ReadForSelection("/")
	return err != nil || t.Online.Equal(t.Present)
}
