package main

import (
	"errors"
	"fmt"
	"time"

	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/importers"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/results"
)

// newImportToolCmd is the importer of one tool's result files: hyperfine,
// pyperf or Geekbench (internal/importers reads them).
func newImportToolCmd(tool, use, short, long, example string) *cli.Command {
	var out string
	cmd := &cli.Command{
		Use:     use,
		Short:   short,
		Long:    long,
		Example: example,
		Args: func(args []string) error {
			switch {
			case len(args) == 0:
				return usageError{Err: fmt.Errorf("want the file %s wrote", tool)}
			case len(args) > 1 && tool != results.KindGeekbench:
				return usageError{Err: fmt.Errorf("one file at a time: %s's file holds all its runs", tool)}
			}
			return nil
		},
		Run: func(in *cli.Invocation, args []string) error {
			run, folder, err := importers.Import(tool, args, out, time.Now())
			if ie := (*importers.InputError)(nil); errors.As(err, &ie) {
				return usageError{Err: err} // a file corepin cannot take: exit 2
			}
			if err != nil {
				return err
			}
			run.WriteSummary(in.Stdout, judge.Words{}.Phrases()) // import has none of the flags they may advise
			if err := writePage(folder.Path, run); err != nil {
				fmt.Fprintln(in.Stderr, "corepin: writing the HTML report:", err)
			}
			fmt.Fprintln(in.Stdout, folder.Path)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "corepin-results", "the results folder goes under this `folder`")
	cmd.Output("out", cli.Results)
	return cmd
}

func newImportHyperfineCmd() *cli.Command {
	return newImportToolCmd(results.KindHyperfine, "hyperfine FILE.json",
		"Read hyperfine --export-json into a results folder",
		`Read the JSON hyperfine --export-json wrote: a benchmark per command, named
by its command line, a run per time (seconds, whatever --time-unit said);
a run that failed (hyperfine --ignore-failure) is kept and is no figure.
compare puts it beside a corepin run of a suite that runs the same command
line (the same program by its name, the same arguments). Where it ran is
not recorded: hyperfine does not say, and corepin did not watch it.

For example, after hyperfine -N --export-json hf.json 'stockfish bench',
corepin import hyperfine hf.json makes a folder that corepin compare puts
beside a corepin run of a suite whose benchmark runs stockfish bench.`,
		`  corepin import hyperfine hf.json
  corepin import hyperfine hf.json --out lab`)
}

func newImportPyperfCmd() *cli.Command {
	return newImportToolCmd(results.KindPyperf, "pyperf FILE.json[.gz]",
		"Read pyperf's JSON (or .json.gz) into a results folder",
		`Read the JSON pyperf wrote (-o FILE, or pyperformance's results, gzipped or
not): a benchmark per pyperf benchmark, a run per value. pyperf's values
are per loop iteration; each run's time is its value × loops × inner_loops,
as pyperf computes its raw values. Calibration runs, which have no values,
and warm-ups are left out; a benchmark of another unit than seconds
(--track-memory's bytes) keeps its unit, lower better. The hostname and CPU
model pyperf recorded are the run's; its other metadata is kept beside.`,
		`  corepin import pyperf bench.json
  corepin import pyperf pyperformance-results.json.gz`)
}

func newImportGeekbenchCmd() *cli.Command {
	return newImportToolCmd(results.KindGeekbench, "geekbench EXPORT.json…",
		"Read Geekbench exports (--export-json) into a results folder",
		`Read the JSON Geekbench's CLI writes with --export-json (or a .gb5/.gb6 file
of its app): the single-core "score", the "multicore_score", each
section's score and each workload's ("Single-Core/File Compression"),
every one a score where higher is better. Several exports are several runs
of each score, which compare then tests. The fields corepin does not read
are kept beside, as the file holds them, and each export byte for byte.
To run Geekbench on the chosen core with corepin's evidence, see
docs/geekbench.md.`,
		`  corepin import geekbench gb-1.json gb-2.json gb-3.json gb-4.json gb-5.json`)
}
