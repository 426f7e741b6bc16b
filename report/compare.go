package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"

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
	if line := c.ScoreLine(); line != "" {
		p.Facts = append(p.Facts, Fact{Label: "Score", Value: strings.TrimPrefix(line, "score ")})
	}
	var bars []Bar
	table := Table{Header: c.TableHeader()}
	for _, d := range c.Deltas {
		verdict := d.Verdict()
		if d.Change != nil {
			bars = append(bars, Bar{Label: d.Name, Value: math.Abs(100 * *d.Change), Color: verdictColors[verdict],
				Note: fmt.Sprintf("(%s, %s)", signed(*d.Change), verdict)})
		}
		table.Rows = append(table.Rows, d.Row())
	}
	notes := c.Notes()
	p.Sections = []SimpleSection{{
		Title:  "Change of the median",
		Charts: []template.HTML{BarChart{Title: "Size of the change of each median · % (green faster, red slower, grey not significant)", Unit: "%", Bars: bars}.SVG()},
		Table:  table,
		Notes:  notes,
	}}
	return p
}

// verdictColors colour the bars: green faster, red slower, grey otherwise.
var verdictColors = map[string]string{
	results.VerdictFaster:       "#1a7f37",
	results.VerdictSlower:       "#d1242f",
	results.VerdictNoDifference: "#8c959f",
	results.VerdictTooFew:       "#8c959f",
}

func signed(v float64) string { return fmt.Sprintf("%+.1f%%", 100*v) }
