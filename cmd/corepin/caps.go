package main

import (
	"corepin.dev/corepin/cmd/corepin/internal/caps"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/termsafe"
)

func newCapsCmd() *cli.Command {
	var (
		asJSON bool
		root   string
	)
	cmd := &cli.Command{
		Use:    "caps",
		Device: cli.OnDevice,
		Short:  "Show what this kernel and this user allow, with the evidence",
		Long: `Show what this kernel and this user allow: uclamp, realtime policies,
lowering nice, EEVDF slice requests, the HarmonyOS QoS node, cpufreq,
isolated CPUs and the CPUs allowed to this process. Each answer comes from a
real request on a throwaway thread or from the file that says so, and the
evidence is printed beside it.

--root reads a saved tree (a folder holding sys/ and proc/) instead of this
machine; what only a real request can tell then reads as unknown.`,
		Example: `  corepin caps
  corepin caps --json
  corepin caps --root ./dump`,
		Args: cli.NoArgs,
		Run: func(in *cli.Invocation, _ []string) error {
			c, err := caps.Read(fsroot.Root(root))
			if err != nil {
				return err
			}
			if asJSON {
				return termsafe.WriteJSON(in.Stdout, c)
			}
			return c.WriteText(in.Stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&root, "root", "/", "read the tree under this `folder`")
	return cmd
}
