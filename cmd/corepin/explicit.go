package main

import (
	"errors"

	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// exitRefused is the exit code of a request corepin will not run as
// asked, as for a session rule's refusal.
const exitRefused = 125

// requestFor builds the command's request for the selected target and
// refuses a target asked for by name that the machine cannot give as
// asked, saying what would have been chosen (see topology.Choice.Unmet).
// --accept any runs on the chosen CPU anyway.
func (f *schedFlags) requestFor(in *cli.Invocation, tf *targetFlags, target topology.Target) (session.Request, error) {
	req, err := f.request(in, target)
	if err != nil || req.Accept.Base() == "any" {
		return req, err
	}
	if why := tf.choice().Unmet("/", target, req.ModeOrDefault() == session.Exact); why != "" {
		return req, &exitError{code: exitRefused, err: errors.New(why)}
	}
	return req, nil
}
