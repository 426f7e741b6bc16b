package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/telemetry"
)

func newTelemetryCmd() *cli.Command {
	var (
		interval, duration    time.Duration
		cpus, avoid           string
		format, out, thermalF string
	)
	cmd := &cli.Command{
		Use:   "telemetry",
		Short: "Sample every CPU's utilisation and frequency, raw, with the source named",
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
			opts := telemetry.Options{Period: interval, Thermal: thermalF != ""}
			var err error
			if opts.CPUs, err = cpuset.Parse(cpus); err != nil {
				return usageError{Err: fmt.Errorf("--cpus: %w", err)}
			}
			if opts.Avoid, err = cpuset.Parse(avoid); err != nil {
				return usageError{Err: fmt.Errorf("--avoid: %w", err)}
			}
			if interval < telemetry.MinPeriod {
				return usageError{Err: fmt.Errorf("--interval %v is shorter than %v", interval, telemetry.MinPeriod)}
			}
			switch format {
			case "", "table", "csv", "json":
			default:
				return usageError{Err: fmt.Errorf("--format %q: want table, csv or json", format)}
			}
			stdout := in.Stdout
			live := format == "" && out == "" && isTerminal(stdout)
			if format == "" {
				format = "table"
			}
			ctx := in.Ctx
			if duration > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, duration)
				defer cancel()
			}
			s, err := telemetry.Start(ctx, opts)
			if err != nil {
				return err
			}
			switch {
			case live:
				showLive(ctx, stdout, s, interval)
			case duration == 0:
				fmt.Fprintf(in.Stderr, "corepin: recording every %v until Ctrl-C\n", interval)
				<-ctx.Done()
			default:
				<-ctx.Done()
			}
			series := s.Stop()
			return writeSeries(stdout, series, format, out, thermalF)
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
	return cmd
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// showLive redraws a table of the latest sample until ctx ends.
func showLive(ctx context.Context, w io.Writer, s *telemetry.Sampler, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	lines := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		snap := s.Snapshot()
		var b strings.Builder
		snap.WriteLatest(&b)
		if lines > 0 {
			fmt.Fprintf(w, "\x1b[%dA\x1b[J", lines) // back up over the last table
		}
		fmt.Fprint(w, b.String())
		lines = strings.Count(b.String(), "\n")
	}
}

func writeSeries(stdout io.Writer, series *telemetry.Series, format, out, thermalF string) error {
	w := stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	var err error
	switch format {
	case "csv":
		err = series.WriteCSV(w)
	case "json":
		err = writeJSON(w, series)
	default:
		err = series.WriteTable(w)
	}
	if err != nil {
		return err
	}
	if thermalF != "" {
		f, err := os.Create(thermalF)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := series.WriteThermalCSV(f); err != nil {
			return err
		}
	}
	return nil
}
