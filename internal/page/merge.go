package page

import (
	"fmt"
	"html/template"
	"strings"

	"corepin.dev/corepin/results"
)

// MergePage shows the same job on several machines: each machine with its
// evidence (host, topology, target, the scheduling read back), one table
// of every benchmark's median, interval and ratio on each machine, and
// bars of each median relative to the first machine's; where a machine's
// cell is not comparable with the first's, no ratio and no bar, and the
// notes say why.
func MergePage(m results.Merge) *Simple {
	var names []string
	for i, mc := range m.Machines {
		names = append(names, fmt.Sprintf("[%d] %s", i+1, mc.Name))
	}
	p := &Simple{
		Title:    "corepin merge",
		Subtitle: fmt.Sprintf("%d machines: %s", len(m.Machines), strings.Join(names, ", ")),
		Footer:   "Made by corepin from each run's run.json; every number here is in them.",
	}
	machines := Table{Header: []string{"#", "Results", "Host", "CPU", "Kernel", "Topology", "Target", "Scheduling read back", "Score"}}
	var notes []string
	for i, mc := range m.Machines {
		score := "-"
		if mc.Score != nil {
			score = fmt.Sprintf("%.0f", *mc.Score)
		}
		machines.Rows = append(machines.Rows, []string{fmt.Sprint(i + 1), mc.Name, results.Recorded(mc.Host.Label()), results.Recorded(mc.Host.CPUModel),
			results.Recorded(mc.Host.Kernel), results.Recorded(mc.Topology), target(mc), mc.Scheduling, score})
		if mc.Interrupted {
			notes = append(notes, fmt.Sprintf("[%d] %s was interrupted: only its finished runs are recorded.", i+1, mc.Name))
		}
	}
	bench := Table{Header: []string{"Benchmark"}}
	for i := range m.Machines {
		bench.Header = append(bench.Header, fmt.Sprintf("[%d] median", i+1), "95% CI", "ratio")
		if i > 0 {
			bench.Header = append(bench.Header, "vs [1]")
		}
	}
	var bars []Bar
	for _, row := range m.Benchmarks {
		r := []string{row.Name}
		for i, c := range row.Cells {
			t := c.Cell()
			r = append(r, t[0], t[1], t[2])
			if i == 0 {
				continue
			}
			r = append(r, t[3])
			if c != nil && c.Relative != nil {
				note := c.Verdict()
				if c.Measure.Higher() {
					note += ", " + c.Measure.Unit + ": higher is better"
				}
				bars = append(bars, Bar{Label: fmt.Sprintf("%s [%d]", row.Name, i+1), Value: *c.Relative, Color: verdictColor(c.Verdict()),
					Note: "(" + note + ")"})
			}
		}
		bench.Rows = append(bench.Rows, r)
	}
	p.Sections = []SimpleSection{
		{Title: "Machines", Table: machines, Notes: notes},
		{Title: "Benchmarks on each machine", Table: bench, Notes: m.Notes()},
	}
	if len(bars) > 0 {
		p.Sections[1].Charts = []template.HTML{BarChart{Title: "Each median over machine [1]'s · × (red slower, green faster, grey no significant difference: Mann-Whitney U, α = 0.05)", Unit: "×", Bars: bars}.SVG()}
	}
	return p
}

// target is where a machine's run ran, "not recorded" for an imported one.
func target(mc results.Machine) string {
	if mc.Target.ExactCPU < 0 {
		return "not recorded"
	}
	return fmt.Sprintf("%s: CPU %d (%s), %s", mc.Target.Spec, mc.Target.ExactCPU, mc.Target.Mode, mc.Target.Why)
}
