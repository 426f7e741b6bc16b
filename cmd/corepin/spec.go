package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/spec"
	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/cli"
)

// newSpecCmd is SPEC CPU under corepin: the runcpu config fragment, and a
// suite made from SPEC's set-up run folders.
func newSpecCmd() *cli.Command {
	c := &cli.Command{
		Use:   "spec",
		Short: "Run SPEC CPU's benchmarks on the chosen core: a runcpu config fragment, or a suite from SPEC's run folders",
		Long: `SPEC CPU 2017 and 2026 under corepin. "spec config" prints the lines that
make runcpu start every benchmark command through corepin exec, by runcpu's
own submit hook, which SPEC's rules allow in reportable runs; "corepin
import spec" then joins SPEC's result with corepin's reports. Where runcpu
cannot run (a phone), "spec suite" turns run folders SPEC set up on another
machine into a corepin suite file. See docs/spec.md.`,
	}
	c.AddCommand(newSpecConfigCmd(), newSpecSuiteCmd())
	return c
}

// specExecFlags are the flags of spec config that the fragment passes on
// to corepin exec as given.
var specExecFlags = []string{"ladder", "policy", "nice", "uclamp", "qos", "realtime", "mode", "accept", "launcher", "watch", "telemetry-interval"}

// specConfigFlags are spec config's own flags, beside the target's and
// the scheduling's.
type specConfigFlags struct {
	tf        targetFlags
	sf        schedFlags
	root      string
	corepin   string
	reports   string
	perCopy   int
	telemetry bool
	launcher  bool
	watch     time.Duration
	interval  time.Duration
}

func newSpecConfigCmd() *cli.Command {
	var o specConfigFlags
	cmd := &cli.Command{
		Use:    "config",
		Device: cli.OnDevice,
		Short:  "Print the runcpu config lines that run every SPEC command through corepin exec",
		Long: `Print a runcpu config fragment, each line after a comment saying why:
command_add_redirect (corepin's words stay out of the validated output),
use_submit_for_speed, bind (the CPUs of the copies, from this machine's
topology: the target first, then one CPU a copy from its performance group),
and submit lines that write runcpu's command to a script in the copy's run
folder and run it with corepin exec on CPU $BIND, writing a report named
by lognum, benchmark, tuning, iteration, workload and copy under
$SPEC/result/corepin.LOGNUM/ (or --reports DIR/corepin.LOGNUM/, where the
SPEC tree is read-only and runcpu writes under its output_root).
Scheduling flags are passed on to exec.

Run it on the machine runcpu runs on (with --on, on the device): the CPUs
and the corepin it names are that machine's.`,
		Example: `  corepin spec config --cpu 3
  corepin spec config --target prime --ladder spec
  corepin spec config --cpus 4-7 --cpus-per-copy 4
  corepin spec config --cpu 3 --reports /scratch/spec-reports
  corepin --on adb spec config --target big`,
		Args: cli.NoArgs,
		Run:  func(in *cli.Invocation, _ []string) error { return o.run(in) },
	}
	o.tf.register(cmd)
	o.sf.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.root, "root", "/", "read the sysfs tree under this `folder` (the machine runcpu runs on)")
	f.StringVar(&o.corepin, "corepin", "", "the corepin runcpu starts, a `path` (default: this corepin's own)")
	f.StringVar(&o.reports, "reports", "", "make each run's folder of reports, corepin.LOGNUM, in this `folder` (default: $SPEC/result)")
	f.IntVar(&o.perCopy, "cpus-per-copy", 1, "CPUs each copy runs on, for multi-threaded (speed) runs: `N` in soft mode")
	f.BoolVar(&o.telemetry, "telemetry", false, "also write each command's per-CPU curves beside its report")
	f.BoolVar(&o.launcher, "launcher", false, "exec starts each command through its re-executed launcher")
	f.DurationVar(&o.watch, "watch", 100*time.Millisecond, "exec's watcher `period`")
	f.DurationVar(&o.interval, "telemetry-interval", time.Second, "time between telemetry samples (with --telemetry)")
	return cmd
}

// run prints the fragment for the flags given.
func (o *specConfigFlags) run(in *cli.Invocation) error {
	binds, err := o.binds(in)
	if err != nil {
		return err
	}
	if o.corepin == "" {
		if o.corepin, err = os.Executable(); err != nil {
			return fmt.Errorf("finding corepin's own path (give --corepin): %w", err)
		}
	}
	if o.reports != "" {
		if o.reports, err = filepath.Abs(o.reports); err != nil {
			return usageError{Err: fmt.Errorf("--reports: %w", err)}
		}
	}
	frag, err := spec.Config{Corepin: o.corepin, Binds: binds, Flags: o.execFlags(in), Telemetry: o.telemetry, Reports: o.reports,
		Line: append([]string{"corepin"}, o.line(in)...)}.Fragment()
	if err != nil {
		return usageError{Err: err}
	}
	_, err = fmt.Fprint(in.Stdout, frag)
	return err
}

// binds are $BIND of the copies: the target resolved on this machine's
// topology, its scheduling checked, a CPU (or list) a copy.
func (o *specConfigFlags) binds(in *cli.Invocation) ([]string, error) {
	topo, target, err := o.tf.resolve(o.root)
	if err != nil {
		return nil, err
	}
	if _, err := o.sf.request(in, target); err != nil {
		return nil, err
	}
	if o.perCopy > 1 && in.Changed("mode") && o.sf.mode != "soft" {
		return nil, usageError{Err: fmt.Errorf("--cpus-per-copy %d runs each copy on a list of CPUs: in soft mode, not --mode %s", o.perCopy, o.sf.mode)}
	}
	binds, err := spec.Binds(topo, target, o.perCopy)
	if err != nil {
		return nil, usageError{Err: fmt.Errorf("--cpus-per-copy: %w", err)}
	}
	return binds, nil
}

// execFlags are the flags the fragment passes on to exec as given (with
// --cpus-per-copy, the mode is the fragment's own: soft).
func (o *specConfigFlags) execFlags(in *cli.Invocation) []string {
	var flags []string
	for _, a := range in.Line {
		if slices.Contains(specExecFlags, a.Flag) && (o.perCopy == 1 || a.Flag != "mode") {
			flags = append(flags, a.Words()...)
		}
	}
	return flags
}

// line is the command line that made the fragment, but for where the
// facts were read and the path the lines name.
func (o *specConfigFlags) line(in *cli.Invocation) []string {
	return in.Words(func(a cli.Arg) []string {
		if a.Flag == "root" || a.Flag == "corepin" {
			return nil
		}
		return a.Words()
	})
}

func newSpecSuiteCmd() *cli.Command {
	var (
		out  string
		runs int
	)
	cmd := &cli.Command{
		Use:   "suite RUNDIR...",
		Short: "Make a corepin suite of SPEC's set-up run folders, for a device where runcpu cannot run",
		Long: `Turn run folders SPEC set up (runcpu --fake or --action setup, on a machine
where runcpu runs) into a corepin suite file: one benchmark per folder, whose
command is the folder's speccmds.cmd (every workload, with its
redirections, in the folder), whose checks are compare.cmd's specdiff
comparisons with their tolerances, and whose reference is the benchmark's
reftime. Give the folder of copy 0 (run_base_refrate_LABEL.0000).

Every path in the suite is relative to the suite file's folder, and nothing
of SPEC's is copied into it: keep the suite in the SPEC tree, and
"corepin --on adb run SUITE" takes the tree's folders it names to the device
with it.`,
		Example: `  corepin spec suite /opt/cpu2017/benchspec/CPU/505.mcf_r/run/run_base_refrate_none.0000 --out /opt/cpu2017/corepin-rate.toml
  corepin --on adb run /opt/cpu2017/corepin-rate.toml`,
		Args: func(args []string) error {
			if len(args) == 0 {
				return usageError{Err: fmt.Errorf("no run folder given (corepin spec suite RUNDIR...)")}
			}
			return nil
		},
	}
	cmd.Run = func(in *cli.Invocation, args []string) error { return writeSpecSuite(in, args, out, runs) }
	cmd.Flags().StringVar(&out, "out", "spec-suite.toml", "write the suite to this `file` (- for standard output; its paths are then relative to this folder)")
	cmd.Flags().IntVar(&runs, "runs", 3, "runs of each benchmark, as SPEC's iterations")
	cmd.Output("out", cli.File)
	return cmd
}

// writeSpecSuite writes the suite of the run folders to out (- for
// standard output), its paths relative to out's folder.
func writeSpecSuite(in *cli.Invocation, args []string, out string, runs int) error {
	if runs < 1 {
		return usageError{Err: fmt.Errorf("--runs %d: want at least 1", runs)}
	}
	if out != "-" {
		if err := checkOutput("out", out); err != nil {
			return err
		}
	}
	var dirs []*spec.RunDir
	for _, a := range args {
		d, err := spec.ReadRunDir(a)
		if err != nil {
			return usageError{Err: err}
		}
		dirs = append(dirs, d)
	}
	base, err := filepath.Abs(filepath.Dir(out))
	if out == "-" {
		base, err = os.Getwd()
	}
	if err != nil {
		return err
	}
	data, err := spec.SuiteFile(dirs, base, runs)
	if err != nil {
		return usageError{Err: err}
	}
	if out == "-" {
		_, err = in.Stdout.Write(data)
		return err
	}
	if err := atomicfile.Write(out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return placeError(fmt.Errorf("writing the suite: %w", err))
	}
	fmt.Fprintf(in.Stdout, "%s: %s\n", out, countOf(len(dirs), "benchmark", "benchmarks"))
	return nil
}
