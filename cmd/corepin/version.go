package main

import (
	"fmt"

	"corepin.dev/corepin/internal/buildinfo"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/termsafe"
)

func newVersionCmd() *cli.Command {
	var asJSON bool
	cmd := &cli.Command{
		Use:   "version",
		Short: "Print corepin's version and the revision it was built from",
		Example: `  corepin version
  corepin version --json`,
		Args: cli.NoArgs,
		Run: func(in *cli.Invocation, _ []string) error {
			v := buildinfo.Read()
			if asJSON {
				return termsafe.WriteJSON(in.Stdout, v)
			}
			_, err := fmt.Fprintln(in.Stdout, v)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
