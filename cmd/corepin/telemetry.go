package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/telemetry"
)

func newTelemetryCmd() *command {
	var (
		interval, duration    time.Duration
		cpus, avoid           string
		format, out, thermalF string
	)
	cmd := &command{
		use:   "telemetry",
		short: "Sample every CPU's utilisation and frequency, raw, with the source named",
		long: `Sample every CPU's utilisation (from /proc/stat) and frequency (from the best
source present: cpuinfo_avg_freq, scaling_cur_freq, cpuinfo_cur_freq,
/proc/cpuinfo, or none) at a fixed interval. Nothing is smoothed or filled
in: a CPU that goes offline is a gap, and a machine without a frequency
source says so.

On a terminal without --format a live table refreshes in place; Ctrl-C ends
the capture and writes what was recorded.`,
		example: `  corepin telemetry --duration 10s --format csv --out cpu.csv
  corepin telemetry --interval 200ms --cpus 0-3 --avoid 3`,
		args: noArgs,
		run: func(in *invocation, _ []string) error {
			opts := telemetry.Options{Period: interval, Thermal: thermalF != ""}
			var err error
			if opts.CPUs, err = cpuset.Parse(cpus); err != nil {
				return usageError{fmt.Errorf("--cpus: %w", err)}
			}
			if opts.Avoid, err = cpuset.Parse(avoid); err != nil {
				return usageError{fmt.Errorf("--avoid: %w", err)}
			}
			if interval < telemetry.MinPeriod {
				return usageError{fmt.Errorf("--interval %v is shorter than %v", interval, telemetry.MinPeriod)}
			}
			switch format {
			case "", "table", "csv", "json":
			default:
				return usageError{fmt.Errorf("--format %q: want table, csv or json", format)}
			}
			stdout := in.stdout
			live := format == "" && out == "" && isTerminal(stdout)
			if format == "" {
				format = "table"
			}
			ctx := in.ctx
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
				fmt.Fprintf(in.stderr, "corepin: recording every %v until Ctrl-C\n", interval)
				<-ctx.Done()
			default:
				<-ctx.Done()
			}
			series := s.Stop()
			return writeSeries(stdout, series, format, out, thermalF)
		},
	}
	f := cmd.flags()
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
		writeLatest(&b, &snap)
		if lines > 0 {
			fmt.Fprintf(w, "\x1b[%dA\x1b[J", lines) // back up over the last table
		}
		fmt.Fprint(w, b.String())
		lines = strings.Count(b.String(), "\n")
	}
}

// writeLatest prints the newest sample of every CPU.
func writeLatest(w io.Writer, series *telemetry.Series) {
	latest := map[int]telemetry.Sample{}
	for _, smp := range series.Samples {
		latest[smp.CPU] = smp
	}
	cpus := seriesCPUs(series)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CPU\tUTIL %\tMHZ\tSOURCE\t")
	for _, c := range cpus {
		smp := latest[c]
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t\n", c, fmtOpt(smp.UtilPct, "%.1f"), fmtOpt(smp.FreqMHz, "%.0f"), smp.FreqSource)
	}
	tw.Flush()
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
		err = writeTable(w, series)
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

// writeTable prints one row per sample instant, CPUs across.
func writeTable(w io.Writer, series *telemetry.Series) error {
	cpus := seriesCPUs(series)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "T S\t")
	for _, c := range cpus {
		fmt.Fprintf(tw, "CPU%d %%\tCPU%d MHZ\t", c, c)
	}
	fmt.Fprintln(tw)
	for i := 0; i < len(series.Samples); {
		t := series.Samples[i].T
		row := map[int]telemetry.Sample{}
		for ; i < len(series.Samples) && series.Samples[i].T == t; i++ {
			row[series.Samples[i].CPU] = series.Samples[i]
		}
		fmt.Fprintf(tw, "%.2f\t", t)
		for _, c := range cpus {
			smp, ok := row[c]
			if !ok {
				fmt.Fprint(tw, "-\t-\t")
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t", fmtOpt(smp.UtilPct, "%.1f"), fmtOpt(smp.FreqMHz, "%.0f"))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	sources := "none (this machine reports no CPU frequency)"
	if len(series.Sources) > 0 {
		sources = strings.Join(series.Sources, ", ")
	}
	fmt.Fprintf(w, "\nfrequency source: %s; sampler ran on CPUs %s\n", sources, series.SamplerCPUs)
	for _, n := range series.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

func fmtOpt(v *float64, f string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(f, *v)
}

// seriesCPUs lists the CPUs that have samples, in order.
func seriesCPUs(series *telemetry.Series) []int {
	var cpus []int
	for _, smp := range series.Samples {
		if !slices.Contains(cpus, smp.CPU) {
			cpus = append(cpus, smp.CPU)
		}
	}
	slices.Sort(cpus)
	return cpus
}
