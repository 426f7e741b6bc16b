package page

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"corepin.dev/corepin/results"
)

// ComparePage shows two runs, before and after, side by side: the change of each benchmark's
// median as bars (green faster, red slower, grey not significant), and a
// table with both medians, their confidence intervals and the p-value.
func ComparePage(before, after *results.Run, beforeName, afterName string) *Simple {
	c := results.Compare(before, after)
	p := &Simple{
		Title:    "corepin compare",
		Subtitle: fmt.Sprintf("%s (before) against %s (after)", beforeName, afterName),
		Footer:   "Made by corepin from the two runs' run.json; every number here is in them.",
		Facts: []Fact{
			{Label: "Old", Value: runFact(before)},
			{Label: "New", Value: runFact(after)},
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
			bars = append(bars, Bar{Label: d.Name, Value: math.Abs(100 * *d.Change), Color: verdictColor(verdict),
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

// runFact is one run of a comparison in a line: its host, CPU, where it
// ran and when it started.
func runFact(r *results.Run) string {
	return fmt.Sprintf("%s, %s, %s, started %s", results.Recorded(r.Host.Hostname), results.Recorded(r.Host.CPUModel), r.Where(), r.Started.UTC().Format("2006-01-02 15:04"))
}

// verdictColor colours a bar: green faster, red slower, grey otherwise.
func verdictColor(verdict string) string {
	switch verdict {
	case results.VerdictFaster:
		return "#1a7f37"
	case results.VerdictSlower:
		return "#d1242f"
	}
	return "#8c959f"
}

func signed(v float64) string { return fmt.Sprintf("%+.1f%%", 100*v) }
