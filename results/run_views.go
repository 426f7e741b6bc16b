package results

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"corepin.dev/corepin/internal/termsafe"
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

// Imported reports whether the run was read from another tool's file
// (corepin import): corepin did not watch it run.
func (r *Run) Imported() bool { return r.Source != nil }

// WhereNotRecorded reports whether nothing says where the run's work ran:
// an imported run, unless corepin's own reports of its commands were
// joined with it (a SPEC run through corepin spec config's fragment).
func (r *Run) WhereNotRecorded() bool { return r.Imported() && r.Target.ExactCPU < 0 }

// Where says where the run's work ran, as every view says it: the target
// CPU, its mode and why it was chosen; for an imported run, where
// corepin's reports say, or that it is not recorded.
func (r *Run) Where() string {
	if r.WhereNotRecorded() {
		return "not recorded (" + r.Source.Describe() + ")"
	}
	where := fmt.Sprintf("CPU %d (%s): %s", r.Target.ExactCPU, r.Target.Mode, r.Target.Why)
	if r.Imported() {
		where += "; " + r.Source.Describe()
	}
	return where
}

// WriteSummary writes the run as corepin run prints it: the host and
// target, a table of the benchmarks, the score and every warning once,
// the kinds say has a phrase for in a line each (SummaryWarnings).
func (r *Run) WriteSummary(w io.Writer, say Phrases) error {
	t := termsafe.Text // every name and text of the run may come from outside
	if r.WhereNotRecorded() {
		fmt.Fprintf(w, "%s; where it ran: not recorded\n", t(r.Source.Describe()))
	} else {
		fmt.Fprintf(w, "%s on %s\n", t(r.Host.CPUModel), t(r.Where()))
	}
	if line := r.schedulingLine(); line != "" {
		fmt.Fprintln(w, t(line))
	}
	fmt.Fprintln(w)
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
		m, fig := b.Figures()
		interval := "-"
		if fig.N > 0 && fig.CIConf > 0 {
			interval = m.Format(fig.CILow) + "–" + m.Format(fig.CIHigh)
		}
		cv := "-" // no completed run: no spread
		if fig.N > 0 {
			cv = fmt.Sprintf("%.1f%%", 100*fig.CV)
		}
		median := fig.MedianText(m)
		if m.Higher() && fig.N > 0 {
			median += " ↑" // higher is better
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\n", t(b.Name), t(median), t(interval), cv, ratio, check, len(b.Warnings))
	}
	tw.Flush()
	for _, b := range r.Benchmarks {
		if why := b.WhyInvalid(); why != "" {
			fmt.Fprintf(w, "%s is invalid: %s\n", t(b.Name), t(why))
		}
	}
	for _, line := range r.measureLines() {
		fmt.Fprintln(w, t(line))
	}
	if r.Score != nil {
		fmt.Fprintf(w, "\nscore %.0f\n", *r.Score)
	}
	for _, warn := range r.SummaryWarnings(say) {
		fmt.Fprintf(w, "warning: %s\n", t(warn))
	}
	return nil
}

// measureLines say, once per measure other than the wall time, which
// benchmarks it judges: "judged by Nodes/second (nodes/s, higher is
// better): stockfish (their wall time is kept beside)".
func (r *Run) measureLines() []string {
	var order []Measure
	names := map[Measure][]string{}
	timed := map[Measure]bool{}
	for _, b := range r.Benchmarks {
		m, _ := b.Figures()
		if m == WallTime {
			continue
		}
		if _, seen := names[m]; !seen {
			order = append(order, m)
		}
		names[m], timed[m] = append(names[m], b.Name), timed[m] || b.N > 0
	}
	var lines []string
	for _, m := range order {
		line := fmt.Sprintf("judged by %s: %s", m.Describe(), strings.Join(names[m], ", "))
		if timed[m] {
			line += " (their wall time is kept beside)"
		}
		lines = append(lines, line)
	}
	return lines
}

// schedulingLine says how the first run that started was scheduled, and
// why the ladder's higher steps did not hold where the kernel lacks them:
// "scheduling: other nice -20 (ladder geekbench step 4; the steps above it
// are unsupported by this kernel: EOPNOTSUPP)".
func (r *Run) schedulingLine() string {
	for _, b := range r.Benchmarks {
		for _, run := range b.Runs {
			sch := run.Scheduling
			if sch == nil || !sch.Child.Started {
				continue
			}
			line := "scheduling: " + sch.Readback.PolicyText()
			if sch.Ladder.AcceptedStep > 0 {
				line += fmt.Sprintf(" (ladder %s step %d", sch.Ladder.Name, sch.Ladder.AcceptedStep)
				if sch.Ladder.AboveUnsupported() {
					line += "; the steps above it are unsupported by this kernel"
				}
				line += ")"
			}
			return line
		}
	}
	return ""
}
