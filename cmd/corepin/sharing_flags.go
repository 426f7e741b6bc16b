package main

import (
	"corepin.dev/corepin/internal/cli"
	"fmt"
	"strconv"
	"strings"
)

// sharingFlags say how much of the target's time others may take before
// a run is warned, and whether a shared target is still a result.
type sharingFlags struct {
	maxOthers string
	allow     bool
}

func (f *sharingFlags) register(cmd *cli.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.maxOthers, "max-others", "2%", "warn when others took more than this `share` of the target CPU's time during a run (above 10% the run is invalid)")
	fl.StringVar(&f.maxOthers, "max-wait", "2%", "the older name of --max-others")
	fl.BoolVar(&f.allow, "allow-sharing", false, "keep runs whose target CPU was shared valid, with a warning")
}

// share parses --max-others: a percentage, with or without its sign.
func (f *sharingFlags) share() (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(f.maxOthers), "%"), 64)
	if err != nil || v <= 0 || v > 100 {
		return 0, usageError{Err: fmt.Errorf("--max-others %q: want a percentage above 0 and at most 100, such as 2%%", f.maxOthers)}
	}
	return v / 100, nil
}
