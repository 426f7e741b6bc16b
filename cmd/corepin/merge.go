package main

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/page"
	"corepin.dev/corepin/internal/termsafe"
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
relative to the first machine's. A machine's figures are related to the
first's only where compare would relate them: runs that measured other
work (quick against full sizes, another suite or kind, another isolation)
and benchmarks without complete, valid runs are shown without a relative
figure or test, and the notes say why. The same folder twice and a
run.json of a schema this corepin does not read are refused. The text goes
to standard output, the page to --out.`,
		Example: `  corepin merge corepin-results/20261201-090000-phone corepin-results/20261201-090000-board
  corepin merge lab/phone lab/board lab/server --out lab.html --format csv`,
		Args: func(args []string) error {
			if len(args) < 1 {
				return usageError{Err: fmt.Errorf("want one or more results folders")}
			}
			return nil
		},
		Run: func(in *cli.Invocation, args []string) error {
			if format != "text" && format != "csv" && format != "json" {
				return usageError{Err: fmt.Errorf("--format %q: want text, csv or json", format)}
			}
			if err := checkOutput("out", out); err != nil {
				return err
			}
			runs, names, err := results.LoadEach(args)
			var se *results.SchemaError
			var same *results.SameFolderError
			if errors.As(err, &se) || errors.As(err, &same) {
				return usageError{Err: err}
			}
			if err != nil {
				return err
			}
			m := results.Merged(runs, names)
			if err := atomicfile.Write(out, page.MergePage(m).Render); err != nil {
				return placeError(err)
			}
			fmt.Fprintln(in.Stderr, "wrote", out)
			switch format {
			case "json":
				return termsafe.WriteJSON(in.Stdout, m)
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
