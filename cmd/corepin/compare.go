package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/report"
	"corepin.dev/corepin/results"
)

func newCompareCmd() *command {
	var format, htmlOut string
	cmd := &command{
		use:   "compare OLD NEW",
		short: "Compare two runs: median change with confidence intervals and a Mann-Whitney U test",
		long: `Compare two results folders (or their run.json) benchmark by benchmark: the
change of the median, both 95% confidence intervals, the p-value of a
Mann-Whitney U test, and whether the difference is significant at α = 0.05;
then the change of the score.`,
		example: `  corepin compare corepin-results/20261130-150000-a corepin-results/20261130-160000-a`,
		args: func(args []string) error {
			if len(args) != 2 {
				return usageError{fmt.Errorf("want two results folders")}
			}
			return nil
		},
		run: func(in *invocation, args []string) error {
			old, err := results.Load(args[0])
			if err != nil {
				return err
			}
			new, err := results.Load(args[1])
			if err != nil {
				return err
			}
			c := results.Compare(old, new)
			w := in.stdout
			if htmlOut != "" {
				page := report.ComparePage(old, new, args[0], args[1])
				if err := atomicfile.Write(htmlOut, page.Render); err != nil {
					return err
				}
				fmt.Fprintln(in.stderr, "wrote", htmlOut)
			}
			switch format {
			case "json":
				return writeJSON(w, c)
			case "csv":
				return writeCompareCSV(w, c)
			case "text":
				writeCompareText(w, c)
				return nil
			}
			return usageError{fmt.Errorf("--format %q: want text, csv or json", format)}
		},
	}
	cmd.flags().StringVar(&format, "format", "text", "text, csv or json")
	cmd.flags().StringVar(&htmlOut, "html", "", "also write a comparison page to this `file`")
	return cmd
}

func writeCompareText(w io.Writer, c results.Comparison) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BENCHMARK\tOLD MEDIAN\tOLD 95% CI\tNEW MEDIAN\tNEW 95% CI\tCHANGE\tP\tVERDICT")
	for _, d := range c.Deltas {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, median(d.Old), ci(d.Old), median(d.New), ci(d.New), change(d.Change), pval(d.P), verdict(d))
	}
	tw.Flush()
	if c.ScoreChange != nil {
		fmt.Fprintf(w, "\nscore %.0f -> %.0f (%+.1f%%)\n", *c.OldScore, *c.NewScore, 100**c.ScoreChange)
	}
	for _, d := range c.Deltas {
		for _, warn := range d.Warnings {
			fmt.Fprintf(w, "note: %s: %s\n", d.Name, warn)
		}
	}
}

func writeCompareCSV(w io.Writer, c results.Comparison) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "old_median_s", "old_ci_low_s", "old_ci_high_s", "new_median_s", "new_ci_low_s", "new_ci_high_s", "change", "p", "significant"})
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }
	for _, d := range c.Deltas {
		row := []string{d.Name, "", "", "", "", "", "", "", "", strconv.FormatBool(d.Significant)}
		if d.Old != nil {
			row[1], row[2], row[3] = num(d.Old.MedianS), num(d.Old.CILowS), num(d.Old.CIHighS)
		}
		if d.New != nil {
			row[4], row[5], row[6] = num(d.New.MedianS), num(d.New.CILowS), num(d.New.CIHighS)
		}
		if d.Change != nil {
			row[7] = num(*d.Change)
		}
		if d.P != nil {
			row[8] = num(*d.P)
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

func median(s *results.Stats) string {
	if s == nil {
		return "-"
	}
	return fmtSeconds(s.MedianS)
}

func ci(s *results.Stats) string {
	if s == nil {
		return "-"
	}
	return fmtSeconds(s.CILowS) + "–" + fmtSeconds(s.CIHighS)
}

func change(c *float64) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100**c)
}

func pval(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}

func verdict(d results.Delta) string {
	switch {
	case d.Old == nil:
		return "new"
	case d.New == nil:
		return "gone"
	case d.P == nil:
		return "too few runs"
	case !d.Significant:
		return "~ (no significant difference)"
	case *d.Change < 0:
		return "faster"
	}
	return "slower"
}
