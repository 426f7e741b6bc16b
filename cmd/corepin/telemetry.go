package main

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"corepin.dev/corepin/cmd/corepin/internal/telemetry"
	"corepin.dev/corepin/internal/cli"
)

func newTelemetryCmd() *cli.Command {
	var (
		interval, duration    time.Duration
		cpus, avoid           string
		format, out, thermalF string
	)
	cmd := &cli.Command{
		Use:    "telemetry",
		Device: cli.OnDevice,
		Short:  "Sample every CPU's utilisation and frequency, raw, with the source named",
		Long: `Sample every CPU's utilisation (from /proc/stat) and frequency (from the best
source present: cpuinfo_avg_freq, scaling_cur_freq, cpuinfo_cur_freq,
/proc/cpuinfo, or none) at a fixed interval. Nothing is smoothed or filled
in: a CPU that goes offline is a gap, and a machine without a frequency
source says so.

On a terminal without --format a live table refreshes in place; Ctrl-C ends
the capture and writes what was recorded.`,
		Example: `  corepin telemetry --duration 10s --format csv --out cpu.csv
  corepin telemetry --interval 200ms --cpus 0-3 --avoid 3`,
		Args: cli.NoArgs,
		Run: func(in *cli.Invocation, _ []string) error {
			capture := telemetry.Capture{Interval: interval, Duration: duration, CPUs: cpus, Avoid: avoid, Format: format, Out: out, ThermalFile: thermalF}
			opts, err := capture.Options()
			if err != nil {
				return usageError{Err: err}
			}
			live := format == "" && out == "" && isTerminal(in.Stdout)
			series, err := capture.Record(in.Ctx, opts, in.Stdout, in.Stderr, live)
			if err != nil {
				return err
			}
			if err := capture.Save(in.Stdout, series); err != nil {
				return err
			}
			return interrupted(in.Ctx, "the samples recorded are written")
		},
	}
	f := cmd.Flags()
	f.DurationVar(&interval, "interval", time.Second, "time between samples (at least 50ms)")
	f.DurationVar(&duration, "duration", 0, "stop after this long (default: until Ctrl-C)")
	f.StringVar(&cpus, "cpus", "", "record only these CPUs (a `list`; default all)")
	f.StringVar(&avoid, "avoid", "", "keep the sampler off these CPUs (a `list`)")
	f.StringVar(&format, "format", "", "output: table, csv or json (default table)")
	f.StringVar(&out, "out", "", "write the output to this `file` instead of standard output")
	f.StringVar(&thermalF, "thermal", "", "also record thermal zones into this CSV `file`")
	cmd.Output("out", cli.File)
	cmd.Output("thermal", cli.File)
	return cmd
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
