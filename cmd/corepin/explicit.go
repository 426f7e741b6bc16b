package main

import (
	"errors"

	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// exitRefused is the exit code of a request corepin will not run as
// asked, as for a session rule's refusal.
const exitRefused = 125

// refuseUnmet refuses a target asked for by name that the machine cannot
// give as asked, saying what would have been chosen (see
// topology.Choice.Unmet). --accept any runs on the chosen CPU anyway.
func refuseUnmet(tf *targetFlags, req session.Request, target topology.Target) error {
	if req.Accept.Base() == "any" {
		return nil
	}
	if why := tf.choice().Unmet("/", target, req.ModeOrDefault() == session.Exact); why != "" {
		return &exitError{code: exitRefused, err: errors.New(why)}
	}
	return nil
}
