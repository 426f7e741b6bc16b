package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/page"
	"corepin.dev/corepin/results"
)

// pageElsewhere keeps the page in $TMPDIR when the results folder cannot
// take it (a read-only copy, an archive, a full disk: why, a PlaceError)
// and says so; any other error is returned as it is.
func pageElsewhere(in *cli.Invocation, path string, why error, write func(io.Writer) error) (string, error) {
	var pe *atomicfile.PlaceError
	if !errors.As(why, &pe) {
		return "", why
	}
	kept, err := atomicfile.KeepInTemp(path, write)
	if err != nil {
		return "", placeError(fmt.Errorf("%w; the page could not be kept in %s either: %v", why, os.TempDir(), err))
	}
	fmt.Fprintf(in.Stderr, "corepin: the results folder cannot take the page (%v); it is in %s instead (--out puts it where you want)\n", why, kept)
	return kept, nil
}

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
utilisation curves with their data. corepin run writes it as report.html. The folder itself is never changed: a
crashed run is shown from its journal as it stands, and where the folder
cannot be written (read-only, full) the page goes to $TMPDIR, said.`,
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
			// A view reads what is there and writes nothing of the folder:
			// a crashed run is settled from its journal in memory alone
			// (results.Load), so that a read-only or archived folder shows
			// as it is and is left as it was.
			run, err := results.Load(args[0])
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
			write := func(w io.Writer) error { return page.Write(w, run, dir) }
			path := out
			if path == "" {
				if path, err = page.WriteFile(dir, run); err != nil {
					if path, err = pageElsewhere(in, path, err, write); err != nil {
						return err
					}
				}
			} else if err := atomicfile.Write(path, write); err != nil {
				return placeError(err)
			}
			fmt.Fprintln(in.Stdout, termsafe.Message(path)) // the folder's name may come from anywhere
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the page to this `file` (default RESULTS_DIR/report.html)")
	return cmd
}
