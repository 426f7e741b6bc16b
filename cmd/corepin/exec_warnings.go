package main

import (
	"fmt"
	"io"

	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/runner"
	"corepin.dev/corepin/session"
)

// execWarnings are what a person must know about a command's run that
// its exit status does not say, judged as corepin run judges each run: a
// target others took time from, a residency that describes little of its
// work, a realtime step the kernel throttles. exec keeps its command's
// exit status: a shared target is said, not made an exit code.
func execWarnings(rep *launch.Report, mode session.Mode) []string {
	v := runner.Judge(rep, runner.Rules{Mode: mode, AllowSharing: true})
	out := make([]string, 0, len(v.Warnings))
	for _, w := range v.Warnings {
		out = append(out, w.Text)
	}
	return out
}

func printWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintln(w, "corepin: warning:", s)
	}
}
