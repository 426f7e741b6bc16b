package results

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"corepin.dev/corepin/internal/termsafe"
)

// The verdicts of a Delta, in the one wording corepin uses for them, in
// text, CSV and on the comparison page.
const (
	VerdictFaster       = "faster"
	VerdictSlower       = "slower"
	VerdictNoDifference = "no significant difference"
	VerdictTooFew       = "too few runs to test"
	VerdictOnlyInNew    = "only in the new run"
	VerdictOnlyInOld    = "only in the old run"
	VerdictWithheld     = "withheld"
)

// Verdict says what the delta shows: faster or slower (significant at the
// delta's α), no significant difference, too few runs, or a benchmark only
// one of the runs has.
func (d Delta) Verdict() string {
	switch {
	case d.Old == nil:
		return VerdictOnlyInNew
	case d.New == nil:
		return VerdictOnlyInOld
	case d.Withheld != "":
		return VerdictWithheld + ": " + d.Withheld
	case d.P == nil || d.Change == nil:
		return VerdictTooFew
	case !d.Significant:
		return VerdictNoDifference
	case d.Better():
		return VerdictFaster
	}
	return VerdictSlower
}

// Better reports whether the new median is better than the old in the
// delta's measure: lower for a time, higher for a rate or a score.
func (d Delta) Better() bool {
	if d.Change == nil {
		return false
	}
	gain, ok := d.Measure.Gain(1, 1+*d.Change)
	return ok && gain > 1
}

// TableHeader names the columns of Row.
func (Comparison) TableHeader() []string {
	return []string{"Benchmark", "Old median", "Old 95% CI", "New median", "New 95% CI", "Change", "p", "Verdict"}
}

// Row is the delta as the comparison's table shows it: name, both medians
// and intervals in the delta's measure, change, p-value and verdict; "-"
// where there is no value.
func (d Delta) Row() []string {
	return []string{d.Name, d.median(d.OldFigures), d.interval(d.OldFigures), d.median(d.NewFigures), d.interval(d.NewFigures),
		d.changeText(), optP(d.P), d.Verdict()}
}

func (d Delta) median(s *Summary) string {
	if s == nil {
		return "-"
	}
	return s.MedianText(d.Measure)
}

func (d Delta) interval(s *Summary) string {
	if s == nil {
		return "-"
	}
	return s.Interval(d.Measure)
}

// changeText is the change in percent, marked ↑ where higher is better.
func (d Delta) changeText() string {
	if d.Change != nil && d.Measure.Higher() {
		return optPercent(d.Change) + " ↑"
	}
	return optPercent(d.Change)
}

// ScoreLine is the change of the score ("score 1000 → 1250 (+25.0%)"), or
// "" when a run has no score.
func (c Comparison) ScoreLine() string {
	if c.ScoreChange == nil {
		return ""
	}
	return fmt.Sprintf("score %.0f → %.0f (%+.1f%%)", *c.OldScore, *c.NewScore, 100**c.ScoreChange)
}

// Notes are the deltas' warnings, each with its benchmark.
func (c Comparison) Notes() []string {
	var notes []string
	for _, d := range c.Differences {
		notes = append(notes, "not comparable: "+d)
	}
	notes = append(notes, c.RunNotes...)
	for _, d := range c.Deltas {
		for _, w := range d.Warnings {
			notes = append(notes, d.Name+": "+w)
		}
	}
	return notes
}

// WriteText writes the comparison as an aligned table, the score line and
// the notes.
func (c Comparison) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	writeTabbed(tw, c.TableHeader(), true)
	for _, d := range c.Deltas {
		row := d.Row()
		for i := range row {
			row[i] = termsafe.Text(row[i]) // the names come from the results folders
		}
		writeTabbed(tw, row, false)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if line := c.ScoreLine(); line != "" {
		fmt.Fprintf(w, "\n%s\n", line)
	}
	for _, n := range c.Notes() {
		fmt.Fprintf(w, "note: %s\n", termsafe.Text(n))
	}
	return nil
}

func writeTabbed(w io.Writer, cells []string, upper bool) {
	for i, c := range cells {
		if upper {
			c = upperASCII(c)
		}
		if i > 0 {
			io.WriteString(w, "\t")
		}
		io.WriteString(w, c)
	}
	io.WriteString(w, "\n")
}

func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// WriteCSV writes one row per benchmark, numbers as read, empty where
// there is no value, and the verdict in the same words as the text. The
// first columns are the wall time's seconds; measure, unit and better
// name what the figures after them, the change and the verdict are in.
func (c Comparison) WriteCSV(w io.Writer) error {
	cw := newCSV(w)
	cw.Write([]string{"name", "old_median_s", "old_ci_low_s", "old_ci_high_s", "new_median_s", "new_ci_low_s", "new_ci_high_s", "change", "p", "significant", "verdict",
		"measure", "unit", "better", "old_median", "old_ci_low", "old_ci_high", "new_median", "new_ci_low", "new_ci_high"})
	for _, d := range c.Deltas {
		row := []string{d.Name, "", "", "", "", "", "", "", "", strconv.FormatBool(d.Significant), d.Verdict(),
			d.Measure.Name, d.Measure.Unit, d.Measure.Better, "", "", "", "", "", ""}
		for i, st := range []*Stats{d.Old, d.New} {
			if st != nil {
				copy(row[1+3*i:], summaryCells(st.summary()))
			}
		}
		for i, fig := range []*Summary{d.OldFigures, d.NewFigures} {
			if fig != nil {
				copy(row[14+3*i:], summaryCells(*fig))
			}
		}
		if d.Change != nil {
			row[7] = fmtF(*d.Change)
		}
		if d.P != nil {
			row[8] = fmtF(*d.P)
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// summaryCells are a median and its interval as CSV cells: empty where
// no run counted, the interval empty where none was computed.
func summaryCells(s Summary) []string {
	cells := []string{"", "", ""}
	if s.N == 0 {
		return cells
	}
	cells[0] = fmtF(s.Median)
	if s.CIConf > 0 {
		cells[1], cells[2] = fmtF(s.CILow), fmtF(s.CIHigh)
	}
	return cells
}

func optPercent(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100**v)
}

func optP(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *v)
}
