package experiment

import (
	"fmt"
	"html/template"
	"sort"

	"corepin.dev/corepin/internal/page"
)

// QoSPage is the QoS experiment as an HTML page: a bar chart of the median
// times per level, loaded (in corepin's session and in others) and
// unloaded, and the read-back of each level.
func (r *QoSResult) Page() *page.Simple {
	p := &page.Simple{
		Title:    "corepin experiment qos",
		Subtitle: fmt.Sprintf("A key thread computes %s on CPU %d beside %d CPU-bound processes, at each QoS level.", r.Work, r.CPU, r.Load),
		Facts: []page.Fact{
			{Label: "Runs", Value: fmt.Sprintf("%d per level and condition, levels interleaved in random order, after one warm-up", r.Runs)},
			{Label: "Ratio under load", Value: fmtRatio(r.RatioLoaded, r.Low, r.High)},
			{Label: "Ratio with the load in other sessions", Value: fmtRatio(r.RatioLoadedApart, r.Low, r.High)},
			{Label: "Ratio without load", Value: fmtRatio(r.RatioUnloaded, r.Low, r.High)},
			{Label: "Published (HarmonyOS phone)", Value: fmt.Sprintf("fib(34) under heavy load: %.1f ms at background, %.1f ms at user-interactive, %.2f×", r.Published["background_ms"], r.Published["user_interactive_ms"], r.Published["ratio"])},
		},
		Notes: r.Notes,
	}
	var bars []page.Bar
	for i, lv := range r.Levels {
		if lv.MedianMsLoaded != nil {
			bars = append(bars, page.Bar{Label: lv.Name + " · loaded", Value: *lv.MedianMsLoaded, Color: page.Color(1)})
		}
		if lv.MedianMsLoadedApart != nil {
			bars = append(bars, page.Bar{Label: lv.Name + " · load in other sessions", Value: *lv.MedianMsLoadedApart, Color: page.Color(2)})
		}
		if lv.MedianMsUnloaded != nil {
			bars = append(bars, page.Bar{Label: lv.Name + " · unloaded", Value: *lv.MedianMsUnloaded, Color: page.Color(0)})
		}
		_ = i
	}
	table := page.Table{Header: []string{"Level", "Median loaded / ms", "Median, load in other sessions / ms", "Median unloaded / ms", "Ladder step", "Read back", "Priority scope", "Restored"}}
	for _, lv := range r.Levels {
		table.Rows = append(table.Rows, []string{lv.Name, fmtOpt(lv.MedianMsLoaded), fmtOpt(lv.MedianMsLoadedApart), fmtOpt(lv.MedianMsUnloaded),
			lv.Accepted, lv.Readback, lv.PriorityScope, fmt.Sprint(lv.Restored)})
	}
	var notes []string
	for _, lv := range r.Levels {
		for _, n := range lv.Notes {
			notes = append(notes, lv.Name+": "+n)
		}
	}
	p.Sections = []page.SimpleSection{{
		Title:  "Median time of the key thread",
		Charts: []template.HTML{page.BarChart{Title: "Median time per level · ms (shorter is better)", Unit: "ms", Bars: bars}.SVG()},
		Table:  table,
		Notes:  notes,
	}}
	return p
}

// Page is the partition experiment as an HTML page: the table beside the
// published i7-1260P times, a bar chart against the ideal, and a timeline
// per strategy.
func (r *PartitionResult) Page() *page.Simple {
	p := &page.Simple{
		Title:    "corepin experiment partition",
		Subtitle: fmt.Sprintf("%d elements × %d iterations of a few bit operations each, one worker per CPU on CPUs %s, barrier per iteration.", r.Size, r.Iterations, r.CPUs),
		Facts: []page.Fact{
			{Label: "Fast and slow CPUs", Value: fmt.Sprintf("fast %s, slow %s", r.FastCPUs, r.SlowCPUs)},
			{Label: "How", Value: r.How},
			{Label: "One worker alone", Value: fmt.Sprintf("%.1f ms on a fast CPU, %.1f ms on a slow CPU (medians)", r.SingleMs, r.SingleSlowMs)},
			{Label: "Speed of the slow CPUs", Value: r.speedText()},
			{Label: "Ideal", Value: fmt.Sprintf("%.1f ms: every CPU busy until the end, in proportion to its speed", r.IdealMs)},
			{Label: "Pinned static / best dynamic", Value: fmt.Sprintf("%.2f× (ideal for these speeds: %.2f×%s; published, i7-1260P: 864/517 = %.2f×)",
				r.PinnedOverBest, r.IdealPinnedOverBest, r.vsIdealText(), publishedPinnedOverBest)},
		},
		Notes: r.Notes,
	}
	table := page.Table{Header: []string{"Strategy", "Median / ms", "× ideal", "Published i7-1260P / ms"}}
	bars := []page.Bar{{Label: "ideal", Value: r.IdealMs, Color: "#57606a"}}
	for _, row := range r.Rows {
		table.Rows = append(table.Rows, []string{row.Label(), fmt.Sprintf("%.1f", row.MedianMs), fmt.Sprintf("%.2f", row.VsIdeal), r.published(row)})
		bars = append(bars, page.Bar{Label: row.Label(), Value: row.MedianMs, Note: fmt.Sprintf("(%.2f× ideal)", row.VsIdeal)})
	}
	p.Sections = append(p.Sections, page.SimpleSection{
		Title:  "Median time per strategy",
		Charts: []template.HTML{page.BarChart{Title: "Median time · ms (shorter is better)", Unit: "ms", Bars: bars}.SVG()},
		Table:  table,
	})
	labels := make([]string, 0, len(r.Timelines))
	for l := range r.Timelines {
		labels = append(labels, l)
	}
	sort.Slice(labels, func(i, j int) bool { return rowOrder(r, labels[i]) < rowOrder(r, labels[j]) })
	cpuColor := map[int]string{}
	var legend []page.Line
	for i, c := range r.CPUs.CPUs() {
		cpuColor[c] = page.Color(i)
		name := fmt.Sprintf("CPU %d", c)
		if r.SlowCPUs.Contains(c) {
			name += " (slow)"
		}
		legend = append(legend, page.Line{Name: name, Color: cpuColor[c]})
	}
	var charts []template.HTML
	for _, l := range labels {
		chunks := r.Timelines[l]
		if len(chunks) == 0 {
			continue
		}
		t0 := chunks[0].Start
		workers := 0
		for _, c := range chunks {
			t0 = min(t0, c.Start)
			workers = max(workers, c.Worker+1)
		}
		rows := make([]string, workers)
		for w := range rows {
			rows[w] = fmt.Sprintf("worker %d", w)
		}
		var spans []page.Span
		for _, c := range chunks {
			spans = append(spans, page.Span{Row: c.Worker, Start: float64(c.Start-t0) / 1e6, End: float64(c.End-t0) / 1e6,
				Color: cpuColor[c.CPUStart], Title: fmt.Sprintf("iteration %d, [%d, %d) on CPU %d→%d", c.Iteration, c.Lo, c.Hi, c.CPUStart, c.CPUEnd)})
		}
		charts = append(charts, page.Timeline{Title: l + ": chunks by worker, coloured by CPU", Rows: rows, Spans: spans,
			XLabel: "time / ms", Legend: legend}.SVG())
	}
	p.Sections = append(p.Sections, page.SimpleSection{Title: "Timelines (the last run of each strategy)", Charts: charts,
		Notes: []string{"Each bar is one chunk, from its start to its end; gaps are workers waiting at the barrier."}})
	return p
}

func rowOrder(r *PartitionResult, label string) int {
	for i, row := range r.Rows {
		if row.Label() == label {
			return i
		}
	}
	return len(r.Rows)
}

func fmtRatio(v *float64, low, high string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f× (%s / %s)", *v, low, high)
}

func fmtOpt(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *v)
}
