package main

import (
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/judge"
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
