package results

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// AllValid reports whether every benchmark of the run is valid.
func (r *Run) AllValid() bool {
	for _, b := range r.Benchmarks {
		if !b.Valid {
			return false
		}
	}
	return true
}

// WriteSummary writes the run as corepin run prints it: the host and
// target, a table of the benchmarks, the score and every warning once.
func (r *Run) WriteSummary(w io.Writer) error {
	fmt.Fprintf(w, "%s on CPU %d (%s): %s\n\n", r.Host.CPUModel, r.Target.ExactCPU, r.Target.Mode, r.Target.Why)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BENCHMARK\tMEDIAN\t95% CI\tCV\tRATIO\tCHECK\tWARNINGS")
	for _, b := range r.Benchmarks {
		ratio, check := "-", "ok"
		if b.Ratio != nil {
			ratio = fmt.Sprintf("%.3f", *b.Ratio)
		}
		if !b.Valid {
			check = "INVALID"
		}
		interval := "-"
		if b.CIConf > 0 {
			interval = FormatSeconds(b.CILowS) + "–" + FormatSeconds(b.CIHighS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f%%\t%s\t%s\t%d\n", b.Name, FormatSeconds(b.MedianS), interval, 100*b.CV, ratio, check, len(b.Warnings))
	}
	tw.Flush()
	if r.Score != nil {
		fmt.Fprintf(w, "\nscore %.0f\n", *r.Score)
	}
	for _, warn := range r.GroupedWarnings() {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	return nil
}
