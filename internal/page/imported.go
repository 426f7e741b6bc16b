package page

import (
	"fmt"
	"slices"
	"strings"

	"corepin.dev/corepin/results"
)

// An imported run (corepin import: SPEC's runcpu, hyperfine, pyperf,
// Geekbench) is shown for what it is: another tool's file, what it says
// of the machine, where it ran only where corepin's reports say, and none
// of the facts of a corepin run (its isolation, warm-ups, telemetry
// period, restore). A SPEC run shows SPEC's figures beside corepin's:
// the means, the selected iteration and its ratio, SPEC's verdict and
// corepin's evidence as columns of their own.

// Cell is one cell of a table the page builds: its text, whether it is a
// number (right-aligned) or bad news (red), and its link.
type Cell struct {
	Text     string
	Num, Bad bool
	Href     string
}

// Grid is a table of cells under its header.
type Grid struct {
	Header []Cell
	Rows   [][]Cell
}

// importFacts are the header's facts of an imported run.
func importFacts(run *results.Run) []Fact {
	src := run.Source
	facts := []Fact{
		{"Imported", fmt.Sprintf("%s (SHA-256 %s, kept as %s)", src.Describe(), src.SHA256, src.File)},
		{"Host", results.Recorded(run.Host.Hostname)},
		{"System", results.Recorded(strings.TrimSpace(run.Host.OS + " " + run.Host.Kernel))},
		{"CPU", results.Recorded(run.Host.CPUModel)},
		{"Where it ran", whereFact(run)},
	}
	if sr := run.Spec; sr != nil {
		facts = append(facts, specFacts(sr)...)
	}
	return append(facts, Fact{"Imported by", fmt.Sprintf("corepin %s, %s", results.Recorded(run.Host.Corepin), run.Host.GoVersion)})
}

// whereFact says where an imported run's work ran: where corepin's
// reports say, or that it is not recorded and what is missing therefore.
func whereFact(run *results.Run) string {
	if !run.WhereNotRecorded() {
		return fmt.Sprintf("CPU %d (%s mode) — %s", run.Target.ExactCPU, run.Target.Mode, run.Target.Why)
	}
	return "not recorded: corepin did not watch this run, so it has no read-back or residency"
}

// specFacts are what SPEC's result says of the run, and what corepin's
// reports added.
func specFacts(sr *results.SpecRun) []Fact {
	run := fmt.Sprintf("%s run %s: %s, %s", sr.Suite, results.Recorded(sr.Lognum), sr.Runmode, results.Recorded(sr.Size))
	if sr.Metric != "" {
		run += ", " + sr.Metric
	}
	verdict := "valid"
	if sr.Invalid {
		verdict = "invalid"
		if len(sr.Errors) > 0 {
			verdict += ": " + strings.Join(sr.Errors, "; ")
		}
	}
	facts := []Fact{{"SPEC run", run}, {"SPEC's verdict", verdict}}
	for _, line := range sr.MeanLines() {
		tune, figures, _ := strings.Cut(line, ": ")
		facts = append(facts, Fact{tune, figures})
	}
	if sr.MeanNote != "" {
		facts = append(facts, Fact{"Means' note", sr.MeanNote})
	}
	reports := "none joined"
	if sr.Evidence != "" {
		reports = fmt.Sprintf("%d joined, from %s", sr.Reports, sr.Evidence)
		if n := len(sr.Unjoined) + sr.UnjoinedOmitted; n > 0 {
			reports += fmt.Sprintf("; %d not joined (see the warnings)", n)
		}
	}
	return append(facts, Fact{"corepin's reports", reports})
}

// importSummary is the benchmark table of an imported run: for SPEC, its
// selected iteration's time and ratio, SPEC's verdict and corepin's
// evidence beside corepin's median; for another tool, its figures and
// whether every run is valid.
func importSummary(run *results.Run) Grid {
	if run.Spec != nil {
		return specSummary(run)
	}
	g := Grid{Header: []Cell{{Text: "Benchmark"}, {Text: "Measure"}, {Text: "Median", Num: true}, {Text: "95% CI of the median", Num: true},
		{Text: "Ratio", Num: true}, {Text: "Runs"}, {Text: "Warnings", Num: true}}}
	for i, b := range run.Benchmarks {
		r := row(b)
		valid := Cell{Text: "valid"}
		if !b.Valid {
			valid = Cell{Text: "INVALID", Bad: true}
		}
		g.Rows = append(g.Rows, []Cell{{Text: b.Name, Href: fmt.Sprintf("#b%d", i)}, {Text: r.Measure}, {Text: r.Median, Num: true},
			{Text: r.CI, Num: true}, {Text: r.Ratio, Num: true}, valid, {Text: fmt.Sprint(r.Warnings), Num: true}})
	}
	return g
}

// specSummary is a SPEC run's benchmark table.
func specSummary(run *results.Run) Grid {
	g := Grid{Header: []Cell{{Text: "Benchmark"}, {Text: "Selected iteration", Num: true}, {Text: "SPEC's time", Num: true},
		{Text: "SPEC's ratio", Num: true}, {Text: "SPEC's verdict"}, {Text: "corepin's evidence"}, {Text: "Median of the valid", Num: true},
		{Text: "On target", Num: true}, {Text: "Ladder"}, {Text: "Warnings", Num: true}}}
	for i, b := range run.Benchmarks {
		r := row(b)
		selected, specTime, specRatio := "-", "-", "-"
		for _, rec := range b.Runs {
			if sp := rec.Spec; sp != nil && sp.Selected {
				selected, specTime, specRatio = fmt.Sprint(sp.Iteration), fmtOpt(sp.ReportedS, "%.3f s"), fmtOpt(sp.Ratio, "%.3f")
			}
		}
		verdicts, evidence := specTally(b)
		g.Rows = append(g.Rows, []Cell{{Text: b.Name, Href: fmt.Sprintf("#b%d", i)}, {Text: selected, Num: true}, {Text: specTime, Num: true},
			{Text: specRatio, Num: true}, verdicts, evidence, {Text: r.Median, Num: true}, {Text: r.Residency, Num: true},
			{Text: r.Ladder}, {Text: fmt.Sprint(r.Warnings), Num: true}})
	}
	return g
}

// specTally is SPEC's verdicts and corepin's evidence over a benchmark's
// iterations: one word where every iteration has it ("S", "valid"), else
// each with its count ("2 S, 1 VE").
func specTally(b results.Benchmark) (verdicts, evidence Cell) {
	var specWords, seenWords []string
	for _, rec := range b.Runs {
		if sp := rec.Spec; sp != nil {
			specWords = append(specWords, sp.Valid)
			seenWords = append(seenWords, sp.Evidence())
		}
	}
	verdicts = Cell{Text: tally(specWords), Bad: slices.ContainsFunc(specWords, func(v string) bool { return v != "S" })}
	evidence = Cell{Text: tally(seenWords), Bad: slices.Contains(seenWords, results.EvidenceInvalid)}
	if len(b.Runs) == 0 {
		verdicts, evidence = Cell{Text: "not run", Bad: true}, Cell{Text: "-"}
	}
	return verdicts, evidence
}

// tally counts words in their first order: "S", or "2 S, 1 VE".
func tally(words []string) string {
	var order []string
	count := map[string]int{}
	for _, w := range words {
		if count[w] == 0 {
			order = append(order, w)
		}
		count[w]++
	}
	if len(order) == 1 {
		return order[0]
	}
	parts := make([]string, len(order))
	for i, w := range order {
		parts[i] = fmt.Sprintf("%d %s", count[w], w)
	}
	return strings.Join(parts, ", ")
}

// importRuns is a benchmark's run table of an imported run: for SPEC,
// each iteration with SPEC's and corepin's time, SPEC's ratio and
// selection, SPEC's verdict and corepin's evidence, and where its first
// command ran; for another tool, each run's time, value and validity.
func importRuns(run *results.Run, b results.Benchmark) Grid {
	if run.Spec != nil {
		return specRuns(b)
	}
	m, _ := b.Figures()
	g := Grid{Header: []Cell{{Text: "Run", Num: true}, {Text: "Time", Num: true}}}
	if m != results.WallTime {
		g.Header = append(g.Header, Cell{Text: "Value", Num: true})
	}
	g.Header = append(g.Header, Cell{Text: "Valid"}, Cell{Text: "Note"})
	for _, r := range b.Runs {
		rr := runRow(b, r)
		cells := []Cell{{Text: rr.Index, Num: true}, {Text: rr.Time, Num: true}}
		if m != results.WallTime {
			cells = append(cells, Cell{Text: rr.Value, Num: true})
		}
		valid := Cell{Text: "valid"}
		if !r.Valid {
			valid = Cell{Text: "INVALID", Bad: true}
		}
		g.Rows = append(g.Rows, append(cells, valid, Cell{Text: rr.Note}))
	}
	return g
}

// specRuns is a SPEC benchmark's iterations.
func specRuns(b results.Benchmark) Grid {
	g := Grid{Header: []Cell{{Text: "Iteration", Num: true}, {Text: "SPEC's time", Num: true}, {Text: "corepin's time", Num: true},
		{Text: "SPEC's ratio", Num: true}, {Text: "Selected"}, {Text: "SPEC's verdict"}, {Text: "corepin's evidence"},
		{Text: "Read-back CPU"}, {Text: "On target", Num: true}, {Text: "Migrations", Num: true}, {Text: "Ladder"}, {Text: "Note"}}}
	for _, r := range b.Runs {
		sp := r.Spec
		if sp == nil {
			continue
		}
		rr := runRow(b, r)
		selected := ""
		if sp.Selected {
			selected = "selected"
		}
		note := strings.Join(nonEmpty(sp.NotRecorded, strings.Join(sp.InvalidByEvidence, "; "), sp.TimeNote), "; ")
		if sp.Valid != "S" {
			note = strings.Join(nonEmpty(strings.Join(sp.Errors, "; "), note), "; ")
		}
		g.Rows = append(g.Rows, []Cell{{Text: fmt.Sprint(sp.Iteration), Num: true}, {Text: fmtOpt(sp.ReportedS, "%.3f s"), Num: true},
			{Text: fmtOpt(sp.CorepinS, "%.3f s"), Num: true}, {Text: fmtOpt(sp.Ratio, "%.3f"), Num: true}, {Text: selected},
			{Text: sp.Valid, Bad: sp.Valid != "S"}, {Text: sp.Evidence(), Bad: sp.Evidence() == results.EvidenceInvalid},
			{Text: rr.CPU}, {Text: rr.Residency, Num: true}, {Text: rr.Migrations, Num: true}, {Text: rr.Ladder}, {Text: note}})
	}
	return g
}

func nonEmpty(texts ...string) []string {
	var out []string
	for _, t := range texts {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}
