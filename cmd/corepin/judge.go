package main

import (
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/results"
)

// judgeFlags are the names of c's flags that the judge's texts may advise
// ("above --max-others 2.0%", "use --warmup"): the judge names no flag
// itself, and a flag c does not have is named by none of its texts.
func judgeFlags(c *cli.Command) judge.Flags {
	name := func(flag string) string {
		if c.Flags().Lookup(flag) == nil {
			return ""
		}
		return "--" + flag
	}
	return judge.Flags{
		MaxOthers:    name("max-others"),
		AllowSharing: name("allow-sharing"),
		Warmup:       name("warmup"),
		SpeedGate:    name("speed-gate"),
		Watch:        name("watch"),
		WaitOnline:   name("wait-online"),
	}
}

// loadRun reads a results folder (results.Load) for a view; a run its
// writer did not finish, which Load settles from its journal in memory,
// is judged by the flags of corepin run, which wrote it.
func loadRun(path string) (*results.Run, error) {
	run, err := results.Load(path)
	if err == nil {
		judge.Words{Flags: judgeFlags(newRunCmd(nil))}.Unfinished(run)
	}
	return run, err
}
