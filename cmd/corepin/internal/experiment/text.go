package experiment

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText writes the QoS experiment as a table of the levels, the ratios
// beside the published one, and the notes.
func (r *QoSResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Key thread: %s on CPU %d; load: %d CPU-bound processes on the same CPU; %d runs each.\n\n", r.Work, r.CPU, r.Load, r.Runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LEVEL\tLOADED MS\tLOAD APART MS\tUNLOADED MS\tSTEP\tREAD BACK\tPRIORITY SCOPE")
	for _, lv := range r.Levels {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", lv.Name, fmtOpt(lv.MedianMsLoaded), fmtOpt(lv.MedianMsLoadedApart),
			fmtOpt(lv.MedianMsUnloaded), lv.Accepted, lv.Readback, lv.PriorityScope)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s / %s: %s under load, %s with the load in other sessions, %s without (published, HarmonyOS phone: %.2f× under load)\n",
		r.Low, r.High, fmtTimes(r.RatioLoaded), fmtTimes(r.RatioLoadedApart), fmtTimes(r.RatioUnloaded), r.Published["ratio"])
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, lv := range r.Levels {
		for _, n := range lv.Notes {
			fmt.Fprintf(w, "note: %s: %s\n", lv.Name, n)
		}
	}
	return nil
}

// WriteText writes the partition experiment as a table of the strategies
// beside the published i7-1260P times, the single-worker times and the
// ratio of pinned static to the best dynamic strategy.
func (r *PartitionResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Workers on CPUs %s: fast %s, slow %s.\n%s.\n\n", r.CPUs, r.FastCPUs, r.SlowCPUs, r.How)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STRATEGY\tMEDIAN MS\t× IDEAL\tPUBLISHED I7-1260P MS")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t%s\n", row.Label(), row.MedianMs, row.VsIdeal, r.published(row))
	}
	fmt.Fprintf(tw, "ideal\t%.1f\t1.00\t-\n", r.IdealMs)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\none worker alone: %.1f ms on a fast CPU, %.1f ms on a slow one\n", r.SingleMs, r.SingleSlowMs)
	fmt.Fprintln(w, r.speedText())
	best := "-"
	if r.BestDynamic != nil {
		best = r.BestDynamic.Label()
	}
	fmt.Fprintf(w, "pinned static / best dynamic (%s): %.2f× (ideal for these speeds: %.2f×%s; published, i7-1260P: %.2f×)\n",
		best, r.PinnedOverBest, r.IdealPinnedOverBest, r.vsIdealText(), publishedPinnedOverBest)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// speedText says how fast the slow CPUs ran against the fast, as the
// speed witness and as the loop alone measured it.
func (r *PartitionResult) speedText() string {
	loop := "-"
	if r.SingleSlowMs > 0 {
		loop = fmt.Sprintf("%.2f", r.SingleMs/r.SingleSlowMs)
	}
	if r.SlowSpeed == nil {
		return fmt.Sprintf("slow CPUs ran at %s of the fast (the loop alone; no speed probe)", loop)
	}
	return fmt.Sprintf("slow CPUs ran at %.2f of the fast (speed probe, median of %d rounds; the loop alone: %s)", *r.SlowSpeed, len(r.SlowSpeedRounds), loop)
}

// vsIdealText is PinnedOverBestVsIdeal as a clause, "" where it was not
// measured (results from before it).
func (r *PartitionResult) vsIdealText() string {
	if r.PinnedOverBestVsIdeal == 0 {
		return ""
	}
	return fmt.Sprintf("; %.2f of it, judged round by round against each round's own speeds", r.PinnedOverBestVsIdeal)
}

// published is the row's published time, "-" where there is none.
func (r *PartitionResult) published(row PartitionRow) string {
	if v, ok := r.PublishedMs[row.Label()]; ok {
		return fmt.Sprintf("%.0f", v)
	}
	return "-"
}

func fmtTimes(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f×", *v)
}
