package main

import (
	"corepin.dev/corepin/caps"
	"corepin.dev/corepin/fsroot"
)

func newCapsCmd() *command {
	var (
		asJSON bool
		root   string
	)
	cmd := &command{
		use:   "caps",
		short: "Show what this kernel and this user allow, with the evidence",
		long: `Show what this kernel and this user allow: uclamp, realtime policies,
lowering nice, EEVDF slice requests, the HarmonyOS QoS node, cpufreq,
isolated CPUs and the CPUs allowed to this process. Each answer comes from a
real request on a throwaway thread or from the file that says so, and the
evidence is printed beside it.

--root reads a saved tree (a folder holding sys/ and proc/) instead of this
machine; what only a real request can tell then reads as unknown.`,
		example: `  corepin caps
  corepin caps --json
  corepin caps --root ./dump`,
		args: noArgs,
		run: func(in *invocation, _ []string) error {
			c, err := caps.Read(fsroot.Root(root))
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(in.stdout, c)
			}
			return c.WriteText(in.stdout)
		},
	}
	cmd.flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.flags().StringVar(&root, "root", "/", "read the tree under this `folder`")
	return cmd
}
