package telemetry

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// csvHeader is the first line WriteCSV writes and ReadCSV expects.
var csvHeader = []string{"t_s", "cpu", "util_pct", "freq_mhz", "freq_source"}

// ReadCSV reads the samples of a CSV that WriteCSV wrote. An empty value is
// an unknown one (nil), as written. A row that is not a sample is an error
// naming its line; the samples before it are returned with the error.
func ReadCSV(r io.Reader) (*Series, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	s := &Series{Samples: []Sample{}}
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("reading telemetry CSV: %w", err)
	}
	if len(head) < len(csvHeader) || !slices.Equal(head[:len(csvHeader)], csvHeader) {
		return s, fmt.Errorf("reading telemetry CSV: the header is %q, want %q", strings.Join(head, ","), strings.Join(csvHeader, ","))
	}
	sources := map[string]bool{}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return s, nil
		}
		if err != nil {
			return s, fmt.Errorf("reading telemetry CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		smp, err := parseSample(row)
		if err != nil {
			return s, fmt.Errorf("reading telemetry CSV, line %d: %w", line, err)
		}
		s.Samples = append(s.Samples, smp)
		if smp.FreqSource != "" && smp.FreqSource != "none" && !sources[smp.FreqSource] {
			sources[smp.FreqSource] = true
			s.Sources = append(s.Sources, smp.FreqSource)
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

// CPUs lists the CPUs that have samples, in order.
func (s *Series) CPUs() []int {
	var cpus []int
	for _, smp := range s.Samples {
		if !slices.Contains(cpus, smp.CPU) {
			cpus = append(cpus, smp.CPU)
		}
	}
	slices.Sort(cpus)
	return cpus
}

// WriteLatest writes a table of every CPU's newest sample: CPU, UTIL %,
// MHZ, SOURCE.
func (s *Series) WriteLatest(w io.Writer) error {
	latest := map[int]Sample{}
	for _, smp := range s.Samples {
		latest[smp.CPU] = smp
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CPU\tUTIL %\tMHZ\tSOURCE\t")
	for _, c := range s.CPUs() {
		smp := latest[c]
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t\n", c, orDash(smp.UtilPct, "%.1f"), orDash(smp.FreqMHz, "%.0f"), smp.FreqSource)
	}
	return tw.Flush()
}

// WriteTable writes one row per sample instant with the CPUs across, then
// the frequency sources, where the sampler ran and the notes.
func (s *Series) WriteTable(w io.Writer) error {
	cpus := s.CPUs()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "T S\t")
	for _, c := range cpus {
		fmt.Fprintf(tw, "CPU%d %%\tCPU%d MHZ\t", c, c)
	}
	fmt.Fprintln(tw)
	for i := 0; i < len(s.Samples); {
		t := s.Samples[i].T
		row := map[int]Sample{}
		for ; i < len(s.Samples) && s.Samples[i].T == t; i++ {
			row[s.Samples[i].CPU] = s.Samples[i]
		}
		fmt.Fprintf(tw, "%.2f\t", t)
		for _, c := range cpus {
			smp, ok := row[c]
			if !ok {
				fmt.Fprint(tw, "-\t-\t")
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t", orDash(smp.UtilPct, "%.1f"), orDash(smp.FreqMHz, "%.0f"))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	sources := "none (this machine reports no CPU frequency)"
	if len(s.Sources) > 0 {
		sources = strings.Join(s.Sources, ", ")
	}
	fmt.Fprintf(w, "\nfrequency source: %s; sampler ran on CPUs %s\n", sources, s.SamplerCPUs)
	for _, n := range s.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

func orDash(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}
