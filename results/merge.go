package results

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"corepin.dev/corepin/internal/termsafe"
)

// Merge is the same job's runs on several machines side by side: per
// benchmark its median, interval and ratio on each machine, and each
// machine's evidence (topology, target, the scheduling read back), so that
// a difference between machines can be explained from the files alone.
// The first machine is the baseline of the relative columns.
type Merge struct {
	Machines   []Machine  `json:"machines"`
	Benchmarks []MergeRow `json:"benchmarks"`
}

// Machine is one run of a merge and where it ran.
type Machine struct {
	Name        string   `json:"name"` // the results folder's name
	Host        Host     `json:"host"`
	Target      Target   `json:"target"`
	Topology    string   `json:"topology"`   // CPUs and performance groups, in one line
	Scheduling  string   `json:"scheduling"` // the first run's read-back, in one line
	Score       *float64 `json:"score"`
	Interrupted bool     `json:"interrupted"`
	// Differences are what this run measured otherwise than the first
	// machine's (sizes, kind, suite, isolation): its times are then not
	// related to the first machine's.
	Differences []string `json:"differences,omitempty"`
}

// MergeRow is one benchmark on every machine; a nil cell is a machine that
// did not run it.
type MergeRow struct {
	Name  string       `json:"name"`
	Cells []*MergeCell `json:"cells"`
}

// MergeCell is one benchmark on one machine.
type MergeCell struct {
	Stats // the wall time's
	// Measure is what the cell is shown and related in: the benchmark's
	// own measure, or the wall time where the first machine's is
	// another; Figures are its statistics in it (nil without).
	Measure Measure  `json:"measure"`
	Figures *Summary `json:"figures"`
	Valid   bool     `json:"valid"`
	Ratio   *float64 `json:"ratio"` // how many times better than its reference, when the benchmark has a reference and a median
	// Relative is this median / the first machine's median, in Measure:
	// above 1 is slower than the first machine for a time, faster for a
	// rate or a score. nil on the first machine, where either median is
	// missing, and where the two cannot be compared.
	Relative *float64 `json:"relative"`
	// Withheld says why this cell is not related to the first machine's,
	// as compare says it: a benchmark without complete, valid runs on
	// either, a definition that differs, or runs that measured different
	// work (Machine.Differences).
	Withheld string `json:"withheld,omitempty"`
	// P is the Mann-Whitney U test's p-value against the first machine's
	// runs; Significant is P below the test's alpha (0.05).
	P           *float64 `json:"p"`
	Significant bool     `json:"significant"`
}

// Merged puts runs side by side; names label them (the folders' names).
// Benchmarks keep the order of their first appearance. A cell is related
// to the first machine's by the rule compare uses, less where the work
// ran: machines differ on purpose.
func Merged(runs []*Run, names []string) Merge {
	var m Merge
	index := map[string]int{}
	first := map[string]*Benchmark{}
	for i, r := range runs {
		mc := machineOf(r, names[i])
		if i > 0 {
			for _, d := range measuredDifferences(runs[0], r) {
				mc.Differences = append(mc.Differences, fmt.Sprintf("%s: %s on [1], %s on [%d]", d.what, d.a, d.b, i+1))
			}
		}
		m.Machines = append(m.Machines, mc)
		cross := i > 0 && crossKind(runs[0], r)
		for j := range r.Benchmarks {
			b := &r.Benchmarks[j]
			k, ok := index[b.Name]
			if base := counterpart(runs[0], b, cross); !ok && base != nil && i > 0 {
				k, ok = index[base.Name] // the same command line, under another name
			}
			if !ok {
				k = len(m.Benchmarks)
				index[b.Name] = k
				m.Benchmarks = append(m.Benchmarks, MergeRow{Name: b.Name, Cells: make([]*MergeCell, len(runs))})
			}
			base := first[m.Benchmarks[k].Name]
			c := &MergeCell{Stats: b.Stats, Valid: b.Valid}
			c.Measure, _ = measureOf(base, b)
			if fig, ok := b.figuresIn(c.Measure); ok {
				c.Figures = &fig
				if b.figuresProblem("") == "" {
					c.Ratio = b.Ratio // a median that is not a figure has no ratio, whatever the file says
				}
			}
			m.Benchmarks[k].Cells[i] = c
			if i == 0 {
				first[b.Name] = b
			} else if base != nil {
				c.Withheld = withheld(runs[0], r, base, b, mc.Differences, "[1]", fmt.Sprintf("[%d]", i+1))
				if _, ok := base.figuresIn(c.Measure); c.Withheld == "" && (!ok || c.Figures == nil) {
					c.Withheld = noMeasureInCommon(base, b, "[1]", fmt.Sprintf("[%d]", i+1))
				}
				if rel, ok := ratioIn(c.Measure, base, b); ok && c.Withheld == "" {
					c.Relative = &rel
					c.P, c.Significant, _ = uTest(c.Measure, base, b)
				}
			}
		}
	}
	return m
}

// Notes say why cells are not related to the first machine's: once per
// machine whose runs measured other work, and per cell for a reason of
// its benchmark alone.
func (m Merge) Notes() []string {
	var notes []string
	for i, mc := range m.Machines {
		if len(mc.Differences) > 0 {
			notes = append(notes, fmt.Sprintf("[%d] is not compared with [1]: the runs differ in %s", i+1, strings.Join(mc.Differences, "; ")))
		}
	}
	for _, row := range m.Benchmarks {
		for i, c := range row.Cells {
			if c == nil || c.Withheld == "" || strings.HasPrefix(c.Withheld, "the runs differ in ") {
				continue
			}
			notes = append(notes, fmt.Sprintf("[%d] %s is not compared with [1]: %s", i+1, row.Name, c.Withheld))
		}
	}
	return notes
}

func machineOf(r *Run, name string) Machine {
	mc := Machine{Name: name, Host: r.Host, Target: r.Target, Score: r.Score, Interrupted: r.Interrupted}
	if t := r.Topology; t != nil {
		var groups []string
		for _, g := range t.Groups {
			s := fmt.Sprintf("%s (%d cores", g.CPUs, g.Cores)
			if g.Capacity != nil {
				s += fmt.Sprintf(", capacity %d", *g.Capacity)
			}
			if g.MaxMHz != nil {
				s += fmt.Sprintf(", %.0f MHz", *g.MaxMHz)
			}
			if g.Kind != "" {
				s += ", " + g.Kind
			}
			groups = append(groups, s+")")
		}
		mc.Topology = fmt.Sprintf("%d CPUs online (%s); groups %s", t.Online.Len(), t.Online, strings.Join(groups, " > "))
		if t.Allowed != nil && !t.Allowed.Equal(t.Online) {
			mc.Topology += fmt.Sprintf("; allowed %s", *t.Allowed)
		}
	}
	if r.WhereNotRecorded() {
		mc.Scheduling = "where it ran: not recorded (" + r.Source.Describe() + ")"
		return mc
	}
	mc.Scheduling = "no scheduling report"
	for _, b := range r.Benchmarks {
		for _, run := range b.Runs {
			if s := run.Scheduling; s != nil {
				rb := s.Readback
				policy := rb.PolicyText()
				ladder := s.Ladder.Name
				if st := s.Ladder.Held(); st != nil {
					ladder += fmt.Sprintf(" step %d (%s)", s.Ladder.AcceptedStep, st.Asked)
				} else if len(s.Ladder.Steps) > 0 {
					ladder += ", no step held"
				}
				mc.Scheduling = fmt.Sprintf("mask %s, on CPU %d, %s; ladder %s", rb.CPUs, rb.CPU, policy, ladder)
				return mc
			}
		}
	}
	return mc
}

// Recorded is a fact as a view shows it: "not recorded" where the run
// has none (an imported file names no host, kernel or topology).
func Recorded(s string) string {
	if strings.TrimSpace(s) == "" {
		return "not recorded"
	}
	return s
}

// Verdict says how the cell's median relates to the first machine's in
// its measure: faster, slower or no significant difference (Mann-Whitney
// U, α = 0.05); "" where the two are not related.
func (c *MergeCell) Verdict() string {
	if c == nil || c.Relative == nil {
		return ""
	}
	switch gain, _ := c.Measure.Gain(1, *c.Relative); {
	case !c.Significant:
		return VerdictNoDifference
	case gain > 1:
		return VerdictFaster
	}
	return VerdictSlower
}

// text is a cell's median with its interval, ratio and relative.
func (c *MergeCell) text() (median, interval, ratio, relative string) {
	if c == nil {
		return "-", "-", "-", "-"
	}
	median, interval, ratio, relative = "-", "-", "-", "-"
	if c.Figures != nil {
		median = c.Figures.MedianText(c.Measure)
		if c.Figures.N > 0 && c.Figures.CIConf > 0 {
			interval = c.Measure.Format(c.Figures.CILow) + "–" + c.Measure.Format(c.Figures.CIHigh)
		}
	}
	if !c.Valid {
		median += " INVALID"
	}
	if c.Ratio != nil {
		ratio = fmt.Sprintf("%.3f", *c.Ratio)
	}
	switch {
	case c.Withheld != "":
		relative = "withheld"
	case c.Relative != nil:
		relative = fmt.Sprintf("×%.3f", *c.Relative)
		if c.Measure.Higher() {
			relative += " ↑" // higher is better
		}
		if !c.Significant {
			relative += " ~" // not significant at α = 0.05
		}
	}
	return
}

// Cell is a cell's figures as text: median, 95% interval, ratio to the
// reference, and relative to the first machine ("-" where there is none).
func (c *MergeCell) Cell() [4]string {
	m, i, r, rel := c.text()
	return [4]string{m, i, r, rel}
}

// WriteText writes the machines with their evidence, then one table: a
// row per benchmark, a column group per machine. Every name and fact is
// shown safe (termsafe.Text): the folders may come from anywhere.
func (m Merge) WriteText(w io.Writer) error {
	t := termsafe.Text
	for i, mc := range m.Machines {
		fmt.Fprintf(w, "[%d] %s: %s, %s, kernel %s\n", i+1, t(mc.Name), t(Recorded(mc.Host.Label())), t(Recorded(mc.Host.CPUModel)), t(Recorded(mc.Host.Kernel)))
		fmt.Fprintf(w, "    topology:   %s\n", t(Recorded(mc.Topology)))
		if mc.Target.ExactCPU >= 0 {
			fmt.Fprintf(w, "    target:     %s, CPU %d (%s): %s\n", t(mc.Target.Spec), mc.Target.ExactCPU, t(string(mc.Target.Mode)), t(mc.Target.Why))
		}
		fmt.Fprintf(w, "    scheduling: %s\n", t(mc.Scheduling))
		if mc.Interrupted {
			fmt.Fprintf(w, "    interrupted: only finished runs are recorded\n")
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "BENCHMARK"
	for i := range m.Machines {
		head += fmt.Sprintf("\t[%d] MEDIAN\t95%% CI\tRATIO", i+1)
		if i > 0 {
			head += "\tVS [1]"
		}
	}
	fmt.Fprintln(tw, head)
	for _, row := range m.Benchmarks {
		line := t(row.Name)
		for i, c := range row.Cells {
			med, ci, ratio, rel := c.text()
			line += "\t" + t(med) + "\t" + t(ci) + "\t" + ratio
			if i > 0 {
				line += "\t" + rel
			}
		}
		fmt.Fprintln(tw, line)
	}
	score := "score"
	for i, mc := range m.Machines {
		if i > 0 {
			score += "\t\t\t" // the interval and ratio of the machine before
			if i > 1 {
				score += "\t" // its vs [1]
			}
		}
		if mc.Score != nil {
			score += fmt.Sprintf("\t%.0f", *mc.Score)
		} else {
			score += "\t-"
		}
	}
	fmt.Fprintln(tw, score)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(m.Machines) > 1 {
		fmt.Fprint(w, "\nVS [1]: the median over machine [1]'s; ")
		if m.anyHigher() {
			fmt.Fprint(w, "↑ marks a measure where higher is better (a rate, a score); ")
		}
		fmt.Fprintln(w, "~ marks no significant difference (Mann-Whitney U, α = 0.05).")
	}
	for _, n := range m.Notes() {
		fmt.Fprintf(w, "note: %s\n", t(n))
	}
	return nil
}

// anyHigher reports whether a cell is in a measure where higher is better.
func (m Merge) anyHigher() bool {
	for _, row := range m.Benchmarks {
		for _, c := range row.Cells {
			if c != nil && c.Measure.Higher() {
				return true
			}
		}
	}
	return false
}

// WriteCSV writes one row per benchmark and machine.
func (m Merge) WriteCSV(w io.Writer) error {
	cw := newCSV(w)
	cw.Write([]string{"benchmark", "machine", "host", "target_cpu", "n", "median_s", "ci_low_s", "ci_high_s", "valid", "ratio", "relative_to_first", "p", "withheld",
		"measure", "unit", "better", "median", "ci_low", "ci_high"})
	for _, row := range m.Benchmarks {
		for i, c := range row.Cells {
			if c == nil {
				continue
			}
			mc := m.Machines[i]
			fig := []string{"", "", ""}
			if c.Figures != nil && c.Figures.N > 0 {
				fig = []string{fmtF(c.Figures.Median), fmtF(c.Figures.CILow), fmtF(c.Figures.CIHigh)}
			}
			cw.Write(append([]string{row.Name, mc.Name, mc.Host.Hostname, fmt.Sprint(mc.Target.ExactCPU), fmt.Sprint(c.N),
				optSeconds(c.Stats, c.MedianS), optSeconds(c.Stats, c.CILowS), optSeconds(c.Stats, c.CIHighS), fmt.Sprint(c.Valid), optF(c.Ratio), optF(c.Relative), optF(c.P), c.Withheld,
				c.Measure.Name, c.Measure.Unit, c.Measure.Better}, fig...))
		}
	}
	cw.Flush()
	return cw.Error()
}

// optSeconds is a wall-time figure of s, empty where no run was timed.
func optSeconds(s Stats, v float64) string {
	if s.N == 0 {
		return ""
	}
	return fmtF(v)
}

func optF(v *float64) string {
	if v == nil {
		return ""
	}
	return fmtF(*v)
}

// SameFolderError is a results folder given twice to a merge (by another
// path, or as the folder and its run.json): merged with itself it would
// seem to agree.
type SameFolderError struct{ First, Again string }

func (e *SameFolderError) Error() string {
	return fmt.Sprintf("%s and %s are the same results folder: give each run once", e.First, e.Again)
}

// LoadEach loads the runs a merge puts side by side, each named for its
// folder, after refusing a folder given twice (a *SameFolderError); a
// run.json of a schema this corepin does not read is a *SchemaError.
func LoadEach(dirs []string) (runs []*Run, names []string, err error) {
	if err := distinctFolders(dirs); err != nil {
		return nil, nil, err
	}
	for _, dir := range dirs {
		r, err := Load(dir)
		if err != nil {
			return nil, nil, err
		}
		runs = append(runs, r)
		names = append(names, filepath.Base(filepath.Clean(dir)))
	}
	return runs, names, nil
}

// distinctFolders refuses a run given twice.
func distinctFolders(dirs []string) error {
	seen := map[int]os.FileInfo{} // by the argument's index
	for i, dir := range dirs {
		file := dir
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			file = filepath.Join(dir, "run.json")
		}
		st, err := os.Stat(file)
		if err != nil {
			continue // Load says what is wrong with it
		}
		for j := range i {
			if prev, ok := seen[j]; ok && os.SameFile(prev, st) {
				return &SameFolderError{First: dirs[j], Again: dirs[i]}
			}
		}
		seen[i] = st
	}
	return nil
}
