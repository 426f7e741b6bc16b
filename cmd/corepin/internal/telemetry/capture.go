package telemetry

// A capture as corepin telemetry asks for it: checked whole before the
// first sample, and written after the last so that nothing recorded is
// lost when a file cannot be written.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/atomicfile"
)

// Capture is a capture as a command line asks for it: CPU lists as given,
// the output format ("" is a table) and the files (Out "" is standard
// output, ThermalFile "" records no thermal zones); Duration 0 records
// until the context ends.
type Capture struct {
	Interval, Duration       time.Duration
	CPUs, Avoid              string
	Format, Out, ThermalFile string
}

// Options checks the capture before anything is recorded and returns the
// sampler's options; its errors name the flags, for they are a wrong
// command line.
func (c Capture) Options() (Options, error) {
	opts := Options{Period: c.Interval, Thermal: c.ThermalFile != ""}
	var err error
	if opts.CPUs, err = cpuset.Parse(c.CPUs); err != nil {
		return opts, fmt.Errorf("--cpus: %w", err)
	}
	if opts.Avoid, err = cpuset.Parse(c.Avoid); err != nil {
		return opts, fmt.Errorf("--avoid: %w", err)
	}
	if c.Interval < MinPeriod {
		return opts, fmt.Errorf("--interval %v is shorter than %v", c.Interval, MinPeriod)
	}
	if err := atomicfile.CheckWritable(c.Out); err != nil {
		return opts, fmt.Errorf("--out: %w", err)
	}
	if err := atomicfile.CheckWritable(c.ThermalFile); err != nil {
		return opts, fmt.Errorf("--thermal: %w", err)
	}
	switch c.Format {
	case "", "table", "csv", "json":
	default:
		return opts, fmt.Errorf("--format %q: want table, csv or json", c.Format)
	}
	return opts, nil
}

// Record samples with opts until ctx ends or the capture's duration has
// passed, showing the latest samples live on stdout when live, and
// returns what was recorded. One without a duration says on stderr that
// it records until Ctrl-C, unless it shows it live.
func (c Capture) Record(ctx context.Context, opts Options, stdout, stderr io.Writer, live bool) (*Series, error) {
	if c.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Duration)
		defer cancel()
	}
	s, err := Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case live:
		s.Show(ctx, stdout, c.Interval)
	case c.Duration == 0:
		fmt.Fprintf(stderr, "corepin: recording every %v until Ctrl-C\n", c.Interval)
		<-ctx.Done()
	default:
		<-ctx.Done()
	}
	return s.Stop(), nil
}

// Save prints the series, or writes it to the capture's file, and writes
// the thermal zones to theirs. A file that cannot be written (a disk that
// filled up during the capture) loses nothing: what it would have held
// is kept in $TMPDIR, or else printed on stdout, and the error says where.
func (c Capture) Save(stdout io.Writer, s *Series) error {
	format := c.Format
	if format == "" {
		format = "table"
	}
	write := func(w io.Writer) error { return s.Write(w, format) }
	var errs []error
	if c.Out == "" {
		if err := write(stdout); err != nil {
			return err
		}
	} else if err := atomicfile.WriteOrKeep(c.Out, "the samples", stdout, write); err != nil {
		errs = append(errs, err)
	}
	if c.ThermalFile != "" {
		if err := atomicfile.WriteOrKeep(c.ThermalFile, "the thermal samples", stdout, s.WriteThermalCSV); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
