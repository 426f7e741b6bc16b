package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"corepin.dev/corepin/cmd/corepin/internal/traceevent"
	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/page"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/results"
)

// keptElsewhere keeps a view of the folder (what: "page", "trace") in
// $TMPDIR when the results folder cannot take it (a read-only copy, an
// archive, a full disk: why, a PlaceError) and says so; any other error
// is returned as it is.
func keptElsewhere(in *cli.Invocation, what, path string, why error, write func(io.Writer) error) (string, error) {
	var pe *atomicfile.PlaceError
	if !errors.As(why, &pe) {
		return "", why
	}
	kept, err := atomicfile.KeepInTemp(path, write)
	if err != nil {
		return "", placeError(fmt.Errorf("%w; the %s could not be kept in %s either: %v", why, what, os.TempDir(), err))
	}
	flag := map[string]string{"page": "--out", "trace": "--trace"}[what]
	fmt.Fprintf(in.Stderr, "corepin: the results folder cannot take the %s (%v); it is in %s instead (%s puts it where you want)\n", what, why, kept, flag)
	return kept, nil
}

// writeView writes one view of the folder (what: "page", "trace"): to
// file where one is named, else into the folder by inFolder, or to
// $TMPDIR where the folder cannot take it. It returns the view's path.
func writeView(in *cli.Invocation, what, file, dir string, run *results.Run,
	inFolder func(string, *results.Run) (string, error), write func(io.Writer) error) (string, error) {
	if file != "" {
		if err := atomicfile.Write(file, write); err != nil {
			return "", placeError(err)
		}
		return file, nil
	}
	path, err := inFolder(dir, run)
	if err != nil {
		return keptElsewhere(in, what, path, err, write)
	}
	return path, nil
}

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
switches), and every CPU's utilisation and frequency as counters.

With --out or --trace, only the views named are written, each where it is
named, and nothing into the folder: --out alone writes no trace, --trace
alone no page (give both for both).

The folder itself is never changed: a crashed run is shown from its
journal as it stands, and where the folder cannot take the page or the
trace (read-only, full), they go to $TMPDIR, said.`,
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
			if err := checkOutput("out", out); err != nil {
				return err
			}
			if err := checkOutput("trace", trace); err != nil {
				return err
			}
			// A view reads what is there and writes nothing of the folder:
			// a crashed run is settled from its journal in memory alone
			// (results.Load), so that a read-only or archived folder shows
			// as it is and is left as it was.
			run, err := loadRun(args[0])
			if err != nil {
				return err
			}
			if note := run.StateNote(); note != "" {
				fmt.Fprintln(in.Stderr, "corepin: "+note)
			}
			dir := args[0]
			if st, err := os.Stat(dir); err == nil && !st.IsDir() {
				dir = filepath.Dir(dir) // run.json named itself
			}
			// Asked for neither view elsewhere, report writes both into
			// the folder, as run does; asked for one, it writes only what
			// it was asked for, where it was asked: never a view into
			// the folder it was asked to write elsewhere.
			inFolder := out == "" && trace == ""
			if inFolder || out != "" {
				path, err := writeView(in, "page", out, dir, run, page.WriteFile, func(w io.Writer) error { return page.Write(w, run, dir) })
				if err != nil {
					return err
				}
				fmt.Fprintln(in.Stdout, termsafe.Message(path)) // the folder's name may come from anywhere
			}
			if inFolder || trace != "" {
				path, err := writeView(in, "trace", trace, dir, run, traceevent.WriteFile, func(w io.Writer) error { return traceevent.Write(w, run, dir) })
				if err != nil {
					return err
				}
				fmt.Fprintln(in.Stdout, termsafe.Message(path))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the page to this `file` (default RESULTS_DIR/report.html, or none with --trace alone)")
	cmd.Flags().StringVar(&trace, "trace", "", "write the trace for Perfetto to this `file` (default RESULTS_DIR/trace.json, or none with --out alone)")
	return cmd
}
