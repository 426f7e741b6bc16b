package main

import (
	"context"
	"fmt"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/telemetry"
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/results/evidence"
)

// execTelemetry is exec's --telemetry: the per-CPU curves around the
// command, by the sampler corepin run uses, kept off the target, written
// in run's CSV.
type execTelemetry struct {
	file     string
	interval time.Duration
}

func (t *execTelemetry) register(cmd *cli.Command) {
	cmd.Flags().StringVar(&t.file, "telemetry", "", "write every CPU's utilisation and frequency around the command to this CSV `file` (the sampler keeps off the target)")
	cmd.Flags().DurationVar(&t.interval, "telemetry-interval", time.Second, "time between telemetry samples (at least 50ms)")
	cmd.Output("telemetry", cli.File)
}

// check refuses, before anything runs, a file that cannot be written and
// a period the sampler cannot keep.
func (t *execTelemetry) check() error {
	if t.file == "" {
		return nil
	}
	if t.interval < telemetry.MinPeriod {
		return fmt.Errorf("--telemetry-interval %v is shorter than %v", t.interval, telemetry.MinPeriod)
	}
	if err := atomicfile.CheckWritable(t.file); err != nil {
		return fmt.Errorf("--telemetry: %w", err)
	}
	return nil
}

// start starts the sampler off target; nil when no telemetry is asked for.
func (t *execTelemetry) start(ctx context.Context, target cpuset.Set) (*telemetry.Sampler, error) {
	if t.file == "" {
		return nil, nil
	}
	s, err := telemetry.Start(context.WithoutCancel(ctx), telemetry.Options{Period: t.interval, Avoid: target})
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	return s, nil
}

// finish stops the sampler, writes its CSV and says in the report where
// and when its curves begin. A file that cannot be written loses nothing:
// the samples are kept in $TMPDIR, and the error says where.
func (t *execTelemetry) finish(in *cli.Invocation, s *telemetry.Sampler, rep *evidence.Scheduling) {
	if s == nil {
		return
	}
	series := s.Stop()
	tf := &evidence.TelemetryFile{File: t.file, StartUnixNS: series.Started.UnixNano(), PeriodS: series.Period,
		Samples: len(series.Samples), SamplerCPUs: series.SamplerCPUs}
	for _, n := range series.Notes {
		tf.Notes = append(tf.Notes, evidence.Clip(n.Text, 256))
	}
	rep.Telemetry = tf
	if err := atomicfile.WriteOrKeep(t.file, "the samples", nil, series.WriteCSV); err != nil {
		fmt.Fprintf(in.Stderr, "corepin: the telemetry could not be written: %v\n", err)
	}
}
