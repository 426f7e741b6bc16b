package main

import "corepin.dev/corepin/internal/cli"

// newImportCmd is the parent of the importers: each reads another tool's
// result file into a results folder that report, compare and merge take
// as they take corepin's own. Each importer lives in its own file
// (import_<tool>.go) and is added here.
func newImportCmd() *cli.Command {
	c := &cli.Command{
		Use:   "import",
		Short: "Read another tool's results (SPEC CPU, hyperfine, pyperf, Geekbench) into a results folder",
		Long: `Read the result file another tool wrote into a corepin results folder, so
that report, compare and merge take it as they take corepin's own runs. The
file is kept byte for byte in the folder (source/), with its SHA-256.
Where the other tool ran the work, corepin did not watch it: an imported run
says "where it ran: not recorded", unless corepin's own reports of the same
invocations are joined with it.`,
	}
	c.AddCommand(newImportSpecCmd(), newImportHyperfineCmd(), newImportPyperfCmd(), newImportGeekbenchCmd())
	return c
}
