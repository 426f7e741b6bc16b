package main

import (
	"fmt"
	"io"
	"os"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/page"
	"corepin.dev/corepin/results"
)

// writePage writes report.html, the HTML page, into the results folder.
func writePage(dir string, run *results.Run) error {
	_, err := page.WriteFile(dir, run)
	return err
}

func newReportCmd() *cli.Command {
	var out string
	cmd := &cli.Command{
		Use:   "report RESULTS_DIR",
		Short: "Write the HTML report of a results folder",
		Long: `Write a self-contained HTML page for a results folder: the host, the target
and the scheduling read back, every warning, a table of the benchmarks, a
heatmap of all CPUs, and for each benchmark the target CPUs' frequency and
utilisation curves with their data. corepin run writes it as report.html.`,
		Example: `  corepin report corepin-results/20261130-150000-myhost
  corepin report corepin-results/20261130-150000-myhost --out /tmp/page.html`,
		Args: func(args []string) error {
			if len(args) != 1 {
				return usageError{Err: fmt.Errorf("want one results folder")}
			}
			return nil
		},
		Run: func(in *cli.Invocation, args []string) error {
			if err := checkOutput("out", out); err != nil {
				return err
			}
			run, err := results.Load(args[0])
			if err != nil {
				return err
			}
			// A crashed run is settled for good from its journal.
			if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
				if err := (&results.Folder{Path: args[0]}).Recover(run); err != nil {
					return err
				}
			}
			if note := run.StateNote(); note != "" {
				fmt.Fprintln(in.Stderr, "corepin: "+note)
			}
			path := out
			if path == "" {
				if path, err = page.WriteFile(args[0], run); err != nil {
					return err
				}
			} else if err := atomicfile.Write(path, func(w io.Writer) error { return page.Write(w, run, args[0]) }); err != nil {
				return placeError(err)
			}
			fmt.Fprintln(in.Stdout, termsafe.Message(path)) // the folder's name may come from anywhere
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the page to this `file` (default RESULTS_DIR/report.html)")
	return cmd
}
