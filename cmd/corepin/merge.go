package main

import (
	"fmt"
	"path/filepath"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/page"
	"corepin.dev/corepin/results"
)

func newMergeCmd() *cli.Command {
	var out, format string
	cmd := &cli.Command{
		Use:   "merge RESULTS_DIR…",
		Short: "Put the same job's runs on several machines side by side: one table and one page",
		Long: `Put results folders from several machines (corepin --on A --on B run, or
folders gathered from anywhere) side by side: for each machine its host,
topology, target and the scheduling read back; for each benchmark the
median, the 95% interval and the ratio on every machine, and each median
relative to the first machine's. The text goes to standard output, the
page to --out.`,
		Example: `  corepin merge corepin-results/20261201-090000-phone corepin-results/20261201-090000-board
  corepin merge lab/phone lab/board lab/server --out lab.html --format csv`,
		Args: func(args []string) error {
			if len(args) < 2 {
				return usageError{Err: fmt.Errorf("want two or more results folders")}
			}
			return nil
		},
		Run: func(in *cli.Invocation, args []string) error {
			if format != "text" && format != "csv" && format != "json" {
				return usageError{Err: fmt.Errorf("--format %q: want text, csv or json", format)}
			}
			var runs []*results.Run
			var names []string
			for _, dir := range args {
				r, err := results.Load(dir)
				if err != nil {
					return err
				}
				runs = append(runs, r)
				names = append(names, filepath.Base(filepath.Clean(dir)))
			}
			m := results.Merged(runs, names)
			if err := atomicfile.Write(out, page.MergePage(m).Render); err != nil {
				return err
			}
			fmt.Fprintln(in.Stderr, "wrote", out)
			switch format {
			case "json":
				return writeJSON(in.Stdout, m)
			case "csv":
				return m.WriteCSV(in.Stdout)
			}
			return m.WriteText(in.Stdout)
		},
	}
	cmd.Flags().StringVar(&out, "out", "corepin-merge.html", "write the page to this `file`")
	cmd.Flags().StringVar(&format, "format", "text", "standard output as text, csv or json")
	cmd.Complete("format", "text", "csv", "json")
	return cmd
}
