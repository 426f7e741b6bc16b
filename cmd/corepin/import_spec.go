package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"corepin.dev/corepin/cmd/corepin/internal/spec"
	"corepin.dev/corepin/internal/cli"
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
		im, data, err := readSpecImport(in.Ctx, args[0], evidenceDir, in.Changed("evidence"), telemetryFile)
		if err == nil {
			var folder *results.Folder
			var run *results.Run
			if folder, run, err = im.Write(in.Ctx, out, data); err == nil {
				printSpecImport(in, folder, run)
				return nil
			}
		}
		if stopped := interrupted(in.Ctx, "nothing was written"); stopped != nil {
			return stopped
		}
		return err
	}
	f := cmd.Flags()
	f.StringVar(&evidenceDir, "evidence", "", "the `folder` of corepin's reports (default: corepin.LOGNUM beside the result)")
	f.StringVar(&telemetryFile, "telemetry", "", "corepin telemetry's JSON `file` around the whole run")
	f.StringVar(&out, "out", "corepin-results", "the results folder goes under this `folder`")
	cmd.Output("out", cli.Results)
	return cmd
}

// readSpecImport reads the result file and what is joined with it: the
// folder of corepin's reports, what specinvoke's files in the run
// folders beside the result say of the commands, and telemetry around
// the run. What cannot be read is a wrong command line.
func readSpecImport(ctx context.Context, result, evidenceDir string, given bool, telemetryFile string) (*spec.Import, []byte, error) {
	data, src, err := results.ReadSource(results.KindSpec, result)
	if err != nil {
		return nil, nil, usageError{Err: fmt.Errorf("reading the SPEC result: %w", err)}
	}
	res, err := spec.ParseResult(data)
	if err != nil {
		return nil, nil, usageError{Err: fmt.Errorf("reading the SPEC result %s: %w", result, err)}
	}
	src.Version = strings.Join(slices.DeleteFunc([]string{res.Suite, res.Suitever, runcpuVersion(res)}, func(s string) bool { return s == "" }), " ")
	im := &spec.Import{Result: res, Source: src, Invocations: spec.ReadInvocations(ctx, result)}
	if st, err := os.Stat(result); err == nil {
		im.Modified = st.ModTime()
	}
	if im.Reports, err = findReports(ctx, im, result, evidenceDir, given); err != nil {
		return nil, nil, err
	}
	if telemetryFile != "" {
		if im.Telemetry, err = spec.ReadTelemetry(telemetryFile); err != nil {
			return nil, nil, usageError{Err: fmt.Errorf("--telemetry: %w", err)}
		}
		im.TelemetryFile = telemetryFile
	}
	return im, data, nil
}

// runcpuVersion is runcpu's version as the source's version says it:
// "(runcpu 6247)"; "" where the file says none.
func runcpuVersion(res *spec.Result) string {
	if res.Runcpuver == "" {
		return ""
	}
	return "(runcpu " + res.Runcpuver + ")"
}

// findReports finds and indexes corepin's reports of the result's
// commands: in the folder given (itself, or its corepin.LOGNUM), else
// beside the result, else where the run folders' commands wrote them
// (spec config --reports); nil where there are none.
func findReports(ctx context.Context, im *spec.Import, result, dir string, given bool) (*spec.Reports, error) {
	lognum := im.Result.Lognum
	var found string
	switch {
	case given:
		f, err := spec.ReportsFolder(dir, lognum)
		if err != nil {
			return nil, usageError{Err: fmt.Errorf("--evidence: %w", err)}
		}
		found = f
	default:
		beside := filepath.Dir(result)
		if f, err := spec.ReportsFolder(beside, lognum); err == nil && f != beside {
			found = f
		} else if dirs := im.Invocations.ReportFolders(lognum); len(dirs) > 0 {
			found = dirs[0]
		} else {
			return nil, nil
		}
	}
	reps, err := spec.IndexReports(ctx, found)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, err
	case err != nil:
		return nil, usageError{Err: err}
	case reps.Len() == 0 && given:
		return nil, usageError{Err: fmt.Errorf("--evidence %s: no report of corepin exec (BENCHMARK.TUNE.iN.wN.cN.json) in it", dir)}
	case reps.Len() == 0:
		return nil, nil
	}
	return reps, nil
}

// printSpecImport says what the import made: the folder, what it holds,
// the means, and every warning once.
func printSpecImport(in *cli.Invocation, folder *results.Folder, run *results.Run) {
	fmt.Fprintf(in.Stdout, "%s: %s, %s, %d of corepin's reports joined\n", folder.Path,
		countOf(len(run.Benchmarks), "benchmark", "benchmarks"), countOf(iterations(run), "iteration", "iterations"), run.Spec.Reports)
	for _, line := range run.Spec.MeanLines() {
		fmt.Fprintln(in.Stdout, line)
	}
	for _, w := range run.GroupedWarnings() {
		fmt.Fprintln(in.Stderr, "corepin: warning:", termsafe.Text(w))
	}
}

// countOf is a count with its noun: "1 benchmark", "3 benchmarks".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// iterations counts the runs of every benchmark.
func iterations(r *results.Run) int {
	n := 0
	for _, b := range r.Benchmarks {
		n += len(b.Runs)
	}
	return n
}
