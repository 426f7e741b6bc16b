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
	"corepin.dev/corepin/results/traceevent"
)

// writePage writes report.html, the HTML page, into the results folder.
func writePage(dir string, run *results.Run) error {
	_, err := page.WriteFile(dir, run)
	return err
}

// writeTrace writes trace.json, the run as a trace for Perfetto, into the
// results folder.
func writeTrace(dir string, run *results.Run) error {
	_, err := traceevent.WriteFile(dir, run)
	return err
}

func newReportCmd() *cli.Command {
	var out, trace string
	cmd := &cli.Command{
		Use:   "report RESULTS_DIR",
		Short: "Write the HTML report of a results folder",
		Long: `Write a self-contained HTML page for a results folder: the host, the target
and the scheduling read back, every warning, a table of the benchmarks, a
heatmap of all CPUs, and for each benchmark the target CPUs' frequency and
utilisation curves with their data. corepin run writes it as report.html.

The same run as a Chrome trace-event JSON file, which ui.perfetto.dev and
chrome://tracing open, is written beside it as trace.json, or to --trace:
the runs as slices with their verdicts and speed probes, who ran on each
target CPU slice by slice (where corepin could trace the scheduler's
switches), and every CPU's utilisation and frequency as counters.`,
		Example: `  corepin report corepin-results/20261130-150000-myhost
  corepin report corepin-results/20261130-150000-myhost --out /tmp/page.html
  corepin report corepin-results/20261130-150000-myhost --trace /tmp/run.json.trace`,
		Args: func(args []string) error {
			if len(args) != 1 {
				return usageError{Err: fmt.Errorf("want one results folder")}
			}
			return nil
		},
		Run: func(in *cli.Invocation, args []string) error {
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
			path, tracePath := out, trace
			if path == "" {
				if path, err = page.WriteFile(args[0], run); err != nil {
					return err
				}
			} else if err := atomicfile.Write(path, func(w io.Writer) error { return page.Write(w, run, args[0]) }); err != nil {
				return err
			}
			if tracePath == "" {
				if tracePath, err = traceevent.WriteFile(args[0], run); err != nil {
					return err
				}
			} else if err := atomicfile.Write(tracePath, func(w io.Writer) error { return traceevent.Write(w, run, args[0]) }); err != nil {
				return err
			}
			fmt.Fprintln(in.Stdout, termsafe.Message(path)) // the folder's name may come from anywhere
			fmt.Fprintln(in.Stdout, termsafe.Message(tracePath))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the page to this `file` (default RESULTS_DIR/report.html)")
	cmd.Flags().StringVar(&trace, "trace", "", "write the trace for Perfetto to this `file` (default RESULTS_DIR/trace.json)")
	return cmd
}
