package main

import (
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/topology"
)

func newTopoCmd() *cli.Command {
	var (
		root   string
		asJSON bool
		tf     targetFlags
	)
	cmd := &cli.Command{
		Use:    "topo",
		Device: cli.OnDevice,
		Short:  "Show the CPU topology, its performance groups and the chosen target",
		Long: `Show the CPUs, their cores, clusters and frequencies, the performance groups
fastest first, and the CPU a single-core run would use, with the reason.

--root reads a saved sysfs tree (a folder holding sys/ and proc/) instead of
this machine.`,
		Example: `  corepin topo
  corepin topo --json
  corepin topo --cpu 3
  corepin topo --root ./dump`,
		Args: cli.NoArgs,
		Run: func(in *cli.Invocation, _ []string) error {
			topo, target, err := tf.resolve(root)
			if err != nil {
				return err
			}
			if asJSON {
				return termsafe.WriteJSON(in.Stdout, struct {
					*topology.Topology
					Target topology.Target `json:"target"`
				}{topo, target})
			}
			return topo.WriteText(in.Stdout, target)
		},
	}
	cmd.Flags().StringVar(&root, "root", "/", "read the sysfs tree under this `folder`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	tf.register(cmd)
	return cmd
}
