package main

import (
	"corepin.dev/corepin/internal/cli"
	"fmt"
	"strconv"
	"strings"
)

// sharingFlags say how much waiting for the target CPU a run may show
// before it is marked, and whether a shared target is still a result.
type sharingFlags struct {
	maxWait string
	allow   bool
}

func (f *sharingFlags) register(cmd *cli.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.maxWait, "max-wait", "2%", "warn when the work waited for the target CPU more than this `share` of its time (a run above 10% is invalid)")
	fl.BoolVar(&f.allow, "allow-sharing", false, "keep runs whose target CPU was shared valid, with a warning")
}

// share parses --max-wait: a percentage, with or without its sign.
func (f *sharingFlags) share() (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(f.maxWait), "%"), 64)
	if err != nil || v <= 0 || v > 100 {
		return 0, usageError{Err: fmt.Errorf("--max-wait %q: want a percentage above 0 and at most 100, such as 2%%", f.maxWait)}
	}
	return v / 100, nil
}
