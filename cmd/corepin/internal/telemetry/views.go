package telemetry

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"corepin.dev/corepin/internal/samples"
)

// ReadCSV reads the samples of a CSV that WriteCSV wrote (see
// samples.ReadCSV). A row that is not a sample is an error naming its
// line; the samples before it are returned with the error.
func ReadCSV(r io.Reader) (*Series, error) {
	smp, sources, err := samples.ReadCSV(r)
	return &Series{Samples: smp, Sources: sources}, err
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
	latest := map[int]samples.Sample{}
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
		row := map[int]samples.Sample{}
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
