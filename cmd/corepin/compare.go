package main

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/page"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/results"
)

func newCompareCmd() *cli.Command {
	var format, htmlOut string
	cmd := &cli.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two runs: median change with confidence intervals and a Mann-Whitney U test",
		Long: `Compare two results folders (or their run.json) benchmark by benchmark: the
change of the median, both 95% confidence intervals, the p-value of a
Mann-Whitney U test, and whether the difference is significant at α = 0.05;
then the change of the score. One folder given twice is refused.`,
		Example: `  corepin compare corepin-results/20261130-150000-a corepin-results/20261130-160000-a`,
		Args: func(args []string) error {
			if len(args) != 2 {
				return usageError{Err: fmt.Errorf("want two results folders")}
			}
			return nil
		},
		Run: func(in *cli.Invocation, args []string) error {
			if err := checkOutput("html", htmlOut); err != nil {
				return err
			}
			// One folder given twice would be judged against itself.
			runs, _, err := results.LoadEach(args)
			var same *results.SameFolderError
			if errors.As(err, &same) {
				return usageError{Err: err}
			}
			if err != nil {
				return err
			}
			before, after := runs[0], runs[1]
			c := results.Compare(before, after)
			w := in.Stdout
			if htmlOut != "" {
				doc := page.ComparePage(before, after, args[0], args[1])
				if err := atomicfile.Write(htmlOut, doc.Render); err != nil {
					return placeError(err)
				}
				fmt.Fprintln(in.Stderr, "wrote", htmlOut)
			}
			switch format {
			case "json":
				return termsafe.WriteJSON(w, c)
			case "csv":
				return c.WriteCSV(w)
			case "text":
				return c.WriteText(w)
			}
			return usageError{Err: fmt.Errorf("--format %q: want text, csv or json", format)}
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text, csv or json")
	cmd.Flags().StringVar(&htmlOut, "html", "", "also write a comparison page to this `file`")
	return cmd
}
