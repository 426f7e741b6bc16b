package watch

import (
	"fmt"
	"io"
	"text/tabwriter"

	"corepin.dev/corepin/cpuset"
)

// WriteText writes the result as corepin watch prints it: one row per
// thread (its share on target only when there was a target), then the
// totals and any errors.
func (res *Result) WriteText(w io.Writer, target cpuset.Set) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tTID\tNAME\tCPU S\tLAST CPU\tRUNNING\tON TARGET\tMIGRATIONS\tRE-ASSERTED")
	for _, t := range res.Threads {
		on := "-"
		if t.OnTargetRatio != nil && !target.IsEmpty() {
			on = fmt.Sprintf("%.0f%%", 100**t.OnTargetRatio)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.2f\t%d\t%d\t%s\t%d\t%d\n", t.PID, t.TID, t.Name, t.CPUSeconds, t.LastCPU, t.Running, on, t.Migrations, t.Reasserts)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d samples every %d ms, %d migrations, %d re-assertions; watcher on CPUs %s\n",
		res.Samples, res.PeriodMs, res.Migrations, res.Reasserts, res.WatcherCPUs)
	for _, e := range res.Errors {
		fmt.Fprintln(w, "error:", e)
	}
	return nil
}
