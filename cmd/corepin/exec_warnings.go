package main

import (
	"fmt"
	"io"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/runner"
	"corepin.dev/corepin/sched"
)

// execWarnings are what a person must know about a command's run that
// its exit status does not say: a target it had to share, a residency
// that describes little of its work, a realtime step the kernel throttles.
func execWarnings(rep *launch.Report) []string {
	var out []string
	if sh := rep.Sharing; sh != nil && sh.WaitShare != nil && *sh.WaitShare > runner.DefaultMaxWait {
		out = append(out, fmt.Sprintf("the work waited %.1f%% of its time for the target CPU: the CPU was shared", 100**sh.WaitShare))
	}
	if c := rep.Coverage; c != nil && c.Coverage != nil && *c.Coverage < runner.CoverageWarn {
		out = append(out, fmt.Sprintf("the %s residency covers only %.0f%% of the tree's CPU time", c.ResidencySource, 100**c.Coverage))
	}
	if w := realtimeWarning(rep); w != "" {
		out = append(out, w)
	}
	return out
}

// realtimeWarning is the throttle's cost when the accepted step is
// realtime, else "".
func realtimeWarning(rep *launch.Report) string {
	if !rep.Readback.Policy.Realtime() {
		return ""
	}
	t, err := sched.ReadRTThrottle(fsroot.Host)
	if err != nil {
		return ""
	}
	return t.Warning()
}

func printWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintln(w, "corepin: warning:", s)
	}
}
