package spec

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"corepin.dev/corepin/cmd/corepin/internal/runner"
	"corepin.dev/corepin/cmd/corepin/internal/telemetry"
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/samples"
	"corepin.dev/corepin/results"
)

// maxTelemetryFile bounds corepin telemetry's JSON around a whole run, as
// run.json is bounded: a sample is some 100 bytes, so 256 MiB is a day at
// one a second on 32 CPUs.
const maxTelemetryFile = 256 << 20

// ReadTelemetry reads corepin telemetry's JSON (--format json), whose
// start on the wall clock places its samples. A CSV is refused: its times
// count from its own start, which it does not hold.
func ReadTelemetry(path string) (*telemetry.Series, error) {
	data, err := readRegular(path, maxTelemetryFile)
	if err != nil {
		return nil, err
	}
	var s telemetry.Series
	if !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		return nil, fmt.Errorf("%s is not corepin telemetry's JSON: a CSV's times count from its own start, which it does not record; record the run with corepin telemetry --format json --out FILE", path)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if s.Started.IsZero() || s.Period <= 0 {
		return nil, fmt.Errorf("%s is not corepin telemetry's JSON: no start or period", path)
	}
	return &s, nil
}

// curves are the iteration's per-CPU curves: cut from corepin telemetry
// around the whole run where it was given, else from exec --telemetry's
// CSVs of copy 0's commands beside their reports, each placed by its
// start; kept beside run.json with t_s from the iteration's start, and
// summarised over its target. A CSV that cannot be read is said and left
// out.
func (ir *importRun) curves(rec *results.RunRecord, it Iteration, cmds []*Report, w warner) error {
	from, to, ok := window(it, cmds)
	if !ok {
		return nil
	}
	var got []samples.Sample
	var period float64
	if tel := ir.im.Telemetry; tel != nil {
		period = tel.Period
		got = cut(tel.Samples, tel.Started.UnixNano(), from, to, period)
	} else {
		got, period = ir.execCurves(cmds, from, to, w)
	}
	if len(got) == 0 {
		return nil
	}
	slices.SortStableFunc(got, func(a, b samples.Sample) int { return cmp.Compare(a.T, b.T) })
	series := &telemetry.Series{Samples: got, Period: period}
	var b strings.Builder
	series.WriteCSV(&b)
	rec.TelemetryCSV = filepath.Join("telemetry", fmt.Sprintf("%s-%d.csv", it.Name(), rec.Index))
	if err := ir.keep(rec.TelemetryCSV, []byte(b.String())); err != nil {
		return err
	}
	var target cpuset.Set
	for _, c := range cmds {
		target = target.Union(c.Scheduling.Readback.CPUs)
	}
	if target.IsEmpty() {
		for _, s := range got {
			target = target.Union(cpuset.Of(s.CPU))
		}
	}
	rec.Telemetry = runner.SummarizeTelemetry(series, target)
	return nil
}

// execCurves are the samples of exec --telemetry's CSVs of copy 0's
// commands that describe from..to, read from beside their reports.
func (ir *importRun) execCurves(cmds []*Report, from, to int64, w warner) (got []samples.Sample, period float64) {
	for _, c := range cmds {
		tf := c.Scheduling.Telemetry
		if tf == nil || c.Key.Copy != 0 {
			continue
		}
		all, err := ir.im.Reports.curves(tf.File)
		if err != nil {
			w.warn(results.KindTelemetry, "workload %d: exec's telemetry: %v", c.Key.Workload, err)
			continue
		}
		period = tf.PeriodS
		got = append(got, cut(all, tf.StartUnixNS, from, to, period)...)
	}
	return got, period
}

// curves reads the CSV exec --telemetry wrote beside the reports, by its
// name; a CSV that is not there has no samples.
func (r *Reports) curves(file string) ([]samples.Sample, error) {
	path := filepath.Join(r.Dir, filepath.Base(file))
	data, err := readRegular(path, maxReportFile*4)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	got, _, err := samples.ReadCSV(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return got, nil
}

// window is when the iteration ran, in ns since the epoch: its commands'
// first start and last end, else SPEC's rate start and end.
func window(it Iteration, cmds []*Report) (from, to int64, ok bool) {
	for _, c := range cmds {
		if t := c.Scheduling.Child.Times; t != nil {
			if !ok || t.StartUnixNS < from {
				from = t.StartUnixNS
			}
			to = max(to, t.EndUnixNS)
			ok = true
		}
	}
	if !ok && it.RateStart != nil && it.RateEnd != nil {
		return epochNS(*it.RateStart), epochNS(*it.RateEnd), true
	}
	return from, to, ok
}

// cut keeps the samples, which begin at origin (ns since the epoch), that
// describe the time from..to: a sample is the utilisation of the period
// that ends at it, so the one just after the end is kept. Their t_s
// becomes seconds since from.
func cut(all []samples.Sample, origin, from, to int64, period float64) []samples.Sample {
	var out []samples.Sample
	last := to + int64(period*1e9)
	for _, s := range all {
		at := origin + int64(s.T*1e9)
		if at <= from || at > last {
			continue
		}
		s.T = float64(at-from) / 1e9
		out = append(out, s)
	}
	return out
}
