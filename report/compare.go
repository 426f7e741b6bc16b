package report

import (
	"fmt"
	"html/template"
	"math"

	"corepin.dev/corepin/results"
)

// ComparePage shows two runs side by side: the change of each benchmark's
// median as bars (green faster, red slower, grey not significant), and a
// table with both medians, their confidence intervals and the p-value.
func ComparePage(old, new *results.Run, oldName, newName string) *Simple {
	c := results.Compare(old, new)
	p := &Simple{
		Title:    "corepin compare",
		Subtitle: fmt.Sprintf("%s (old) against %s (new)", oldName, newName),
		Footer:   "Made by corepin from the two runs' run.json; every number here is in them.",
		Facts: []Fact{
			{Label: "Old", Value: fmt.Sprintf("%s, %s, CPU %d (%s), started %s", old.Host.Hostname, old.Host.CPUModel, old.Target.ExactCPU, old.Target.Mode, old.Started.UTC().Format("2006-01-02 15:04"))},
			{Label: "New", Value: fmt.Sprintf("%s, %s, CPU %d (%s), started %s", new.Host.Hostname, new.Host.CPUModel, new.Target.ExactCPU, new.Target.Mode, new.Started.UTC().Format("2006-01-02 15:04"))},
			{Label: "Test", Value: "Mann-Whitney U on the counted runs, α = 0.05 (golang.org/x/perf/benchmath)"},
		},
	}
	if c.ScoreChange != nil {
		p.Facts = append(p.Facts, Fact{Label: "Score", Value: fmt.Sprintf("%.0f → %.0f (%+.1f%%)", *c.OldScore, *c.NewScore, 100**c.ScoreChange)})
	}
	var bars []Bar
	table := Table{Header: []string{"Benchmark", "Old median", "Old 95% CI", "New median", "New 95% CI", "Change", "p", "Verdict"}}
	var notes []string
	for _, d := range c.Deltas {
		verdict, color := "no significant difference", "#8c959f"
		switch {
		case d.Old == nil:
			verdict = "only in the new run"
		case d.New == nil:
			verdict = "only in the old run"
		case d.P == nil:
			verdict = "too few runs to test"
		case d.Significant && *d.Change < 0:
			verdict, color = "faster", "#1a7f37"
		case d.Significant:
			verdict, color = "slower", "#d1242f"
		}
		if d.Change != nil {
			bars = append(bars, Bar{Label: d.Name, Value: math.Abs(100 * *d.Change), Color: color,
				Note: fmt.Sprintf("(%s, %s)", signed(*d.Change), verdict)})
		}
		table.Rows = append(table.Rows, []string{d.Name, statMedian(d.Old), statCI(d.Old), statMedian(d.New), statCI(d.New),
			optSigned(d.Change), optP(d.P), verdict})
		for _, w := range d.Warnings {
			notes = append(notes, d.Name+": "+w)
		}
	}
	p.Sections = []SimpleSection{{
		Title:  "Change of the median",
		Charts: []template.HTML{BarChart{Title: "Size of the change of each median · % (green faster, red slower, grey not significant)", Unit: "%", Bars: bars}.SVG()},
		Table:  table,
		Notes:  notes,
	}}
	return p
}

func signed(v float64) string { return fmt.Sprintf("%+.1f%%", 100*v) }

func optSigned(v *float64) string {
	if v == nil {
		return "-"
	}
	return signed(*v)
}

func optP(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *v)
}

func statMedian(s *results.Stats) string {
	if s == nil {
		return "-"
	}
	return fmtSeconds(s.MedianS)
}

func statCI(s *results.Stats) string {
	if s == nil || s.CIConf == 0 {
		return "-"
	}
	return fmtSeconds(s.CILowS) + " – " + fmtSeconds(s.CIHighS)
}
