package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/spec"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/results"
)

func newImportSpecCmd() *cli.Command {
	var evidenceDir, telemetryFile, out string
	cmd := &cli.Command{
		Use:   "spec RESULT.rsf",
		Short: "Import a SPEC CPU result, joined with corepin's reports of its commands",
		Long: `Read a SPEC CPU 2017 or 2026 result (the raw file runcpu writes,
result/CPU20xx.NNN.*.rsf, or its CSV where there is no raw file) into a
corepin results folder: one benchmark per benchmark and tuning, SPEC's
iterations as its runs, with SPEC's time, reference, ratio, verdict and
selection kept as SPEC wrote them.

Where the run went through the fragment of "corepin spec config", each
iteration is joined with corepin exec's reports of its commands (one per
workload and copy, found in result/corepin.LOGNUM beside the result, or in
--evidence): the read-back, the ladder step, others' share of the target,
the residency and the tree. An iteration whose reports show a shared target,
an acceptance rule that failed, work off the target or a start corepin
refused is invalid by corepin's evidence, with SPEC's verdict beside it.
SPEC's time is compared with corepin's, and SPEC's mean recomputed.

--telemetry takes the JSON of "corepin telemetry --format json" recorded
around the whole runcpu; each iteration's curves are cut from it by its
commands' times (exec --telemetry's own curves are found beside the
reports). report, compare and merge take the folder as they take
corepin's own.`,
		Example: `  corepin import spec /opt/cpu2017/result/CPU2017.042.intrate.refrate.rsf
  corepin import spec result.rsf --evidence ./corepin.042 --telemetry run.json --out phones/`,
		Args: cli.ExactArgs(1, "the result file"),
	}
	cmd.Run = func(in *cli.Invocation, args []string) error {
		data, src, err := results.ReadSource(results.KindSpec, args[0])
		if err != nil {
			return usageError{Err: fmt.Errorf("reading the SPEC result: %w", err)}
		}
		res, err := spec.ParseResult(data)
		if err != nil {
			return usageError{Err: fmt.Errorf("reading the SPEC result %s: %w", args[0], err)}
		}
		src.Version = fmt.Sprintf("%s %s (runcpu %s)", res.Suite, res.Suitever, res.Runcpuver)
		im := &spec.Import{Result: res, Source: src}
		if st, err := os.Stat(args[0]); err == nil {
			im.Modified = st.ModTime()
		}
		if err := readEvidence(im, args[0], evidenceDir, in.Changed("evidence")); err != nil {
			return usageError{Err: err}
		}
		if telemetryFile != "" {
			if im.Telemetry, err = spec.ReadTelemetry(telemetryFile); err != nil {
				return usageError{Err: fmt.Errorf("--telemetry: %w", err)}
			}
			im.TelemetryFile = telemetryFile
		}
		folder, run, err := im.Write(out, data)
		if err != nil {
			return err
		}
		fmt.Fprintf(in.Stdout, "%s: %d benchmarks, %d iterations, %d of corepin's reports joined\n", folder.Path, len(run.Benchmarks), iterations(run), run.Spec.Reports)
		for _, w := range run.GroupedWarnings() {
			fmt.Fprintln(in.Stderr, "corepin: warning:", termsafe.Text(w))
		}
		return nil
	}
	f := cmd.Flags()
	f.StringVar(&evidenceDir, "evidence", "", "the `folder` of corepin's reports (default: corepin.LOGNUM beside the result)")
	f.StringVar(&telemetryFile, "telemetry", "", "corepin telemetry's JSON `file` around the whole run")
	f.StringVar(&out, "out", "corepin-results", "the results folder goes under this `folder`")
	cmd.Output("out", cli.Results)
	return cmd
}

// readEvidence finds and reads corepin's reports of the result's
// commands: in the folder given, or beside the result where they are.
func readEvidence(im *spec.Import, result, dir string, given bool) error {
	if !given {
		dir = filepath.Dir(result)
	}
	found, err := spec.ReportsFolder(dir, im.Result.Lognum)
	if err != nil {
		if !given {
			return nil
		}
		return fmt.Errorf("--evidence: %w", err)
	}
	if !given && found == dir {
		return nil // no corepin.LOGNUM beside the result
	}
	reports, err := spec.ReadReports(found)
	if err != nil {
		return err
	}
	if len(reports) == 0 && given {
		return fmt.Errorf("--evidence %s: %w", dir, errors.New("no report of corepin exec (BENCHMARK.TUNE.iN.wN.cN.json) in it"))
	}
	im.Reports, im.EvidenceDir = reports, found
	im.Curves, err = spec.ReadCurves(found, reports)
	return err
}

// iterations counts the runs of every benchmark.
func iterations(r *results.Run) int {
	n := 0
	for _, b := range r.Benchmarks {
		n += len(b.Runs)
	}
	return n
}
