// Package samples is the telemetry sample and the CSV a results folder
// keeps of a run's samples: written by the sampler's series, read by the
// report. It is a leaf, so that a reader of a results folder does not
// link the sampler.
package samples

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Sample is one CPU at one instant. T is seconds since the start on the
// monotonic clock, as actually taken (jitter stays visible).
type Sample struct {
	T          float64  `json:"t_s"`
	CPU        int      `json:"cpu"`
	UtilPct    *float64 `json:"util_pct"`
	FreqMHz    *float64 `json:"freq_mhz"`
	FreqSource string   `json:"freq_source"`
	Throttles  *int64   `json:"throttles,omitempty"`
}

// csvHeader is the first line WriteCSV writes and ReadCSV expects.
var csvHeader = []string{"t_s", "cpu", "util_pct", "freq_mhz", "freq_source"}

// WriteCSV writes the samples in long format, one row per sample per CPU:
// t_s,cpu,util_pct,freq_mhz,freq_source. An unknown value is an empty field.
func WriteCSV(w io.Writer, samples []Sample) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, smp := range samples {
		cw.Write([]string{
			strconv.FormatFloat(smp.T, 'f', 3, 64),
			strconv.Itoa(smp.CPU),
			optFloat(smp.UtilPct, 1),
			optFloat(smp.FreqMHz, 1),
			smp.FreqSource,
		})
	}
	cw.Flush()
	return cw.Error()
}

func optFloat(v *float64, prec int) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}

// ReadCSV reads the samples of a CSV that WriteCSV wrote, and the
// frequency sources they name, in the order they first appear. An empty
// value is an unknown one (nil), as written. A row that is not a sample is
// an error naming its line; the samples before it are returned with the
// error.
func ReadCSV(r io.Reader) (samples []Sample, sources []string, err error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	samples = []Sample{}
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return samples, nil, nil
	}
	if err != nil {
		return samples, nil, fmt.Errorf("reading telemetry CSV: %w", err)
	}
	if len(head) < len(csvHeader) || !slices.Equal(head[:len(csvHeader)], csvHeader) {
		return samples, nil, fmt.Errorf("reading telemetry CSV: the header is %q, want %q", strings.Join(head, ","), strings.Join(csvHeader, ","))
	}
	seen := map[string]bool{}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return samples, sources, nil
		}
		if err != nil {
			return samples, sources, fmt.Errorf("reading telemetry CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		smp, err := parseSample(row)
		if err != nil {
			return samples, sources, fmt.Errorf("reading telemetry CSV, line %d: %w", line, err)
		}
		samples = append(samples, smp)
		if smp.FreqSource != "" && smp.FreqSource != "none" && !seen[smp.FreqSource] {
			seen[smp.FreqSource] = true
			sources = append(sources, smp.FreqSource)
		}
	}
}

func parseSample(row []string) (Sample, error) {
	if len(row) < len(csvHeader) {
		return Sample{}, fmt.Errorf("%d fields, want %d", len(row), len(csvHeader))
	}
	t, err := strconv.ParseFloat(row[0], 64)
	if err != nil {
		return Sample{}, fmt.Errorf("time %q: %w", row[0], err)
	}
	cpu, err := strconv.Atoi(row[1])
	if err != nil || cpu < 0 {
		return Sample{}, fmt.Errorf("CPU %q is not a CPU number", row[1])
	}
	smp := Sample{T: t, CPU: cpu, FreqSource: row[4]}
	if smp.UtilPct, err = parseOptional(row[2]); err != nil {
		return Sample{}, fmt.Errorf("utilisation %q: %w", row[2], err)
	}
	if smp.FreqMHz, err = parseOptional(row[3]); err != nil {
		return Sample{}, fmt.Errorf("frequency %q: %w", row[3], err)
	}
	return smp, nil
}

// parseOptional reads a number, or nil for an empty field.
func parseOptional(s string) (*float64, error) {
	if s == "" {
		return nil, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, err
	}
	return &v, nil
}
