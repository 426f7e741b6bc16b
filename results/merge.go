package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
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
}

// MergeRow is one benchmark on every machine; a nil cell is a machine that
// did not run it.
type MergeRow struct {
	Name  string       `json:"name"`
	Cells []*MergeCell `json:"cells"`
}

// MergeCell is one benchmark on one machine.
type MergeCell struct {
	Stats
	Valid bool     `json:"valid"`
	Ratio *float64 `json:"ratio"` // reference / median, when the benchmark has a reference
	// Relative is this median / the first machine's median: above 1 is
	// slower than the first machine. nil on the first machine and where
	// either median is missing.
	Relative *float64 `json:"relative"`
	// P is the Mann-Whitney U test's p-value against the first machine's
	// runs; Significant is P below the test's alpha (0.05).
	P           *float64 `json:"p"`
	Significant bool     `json:"significant"`
}

// Merged puts runs side by side; names label them (the folders' names).
// Benchmarks keep the order of their first appearance.
func Merged(runs []*Run, names []string) Merge {
	var m Merge
	index := map[string]int{}
	first := map[string]*Benchmark{}
	for i, r := range runs {
		m.Machines = append(m.Machines, machineOf(r, names[i]))
		for j := range r.Benchmarks {
			b := &r.Benchmarks[j]
			k, ok := index[b.Name]
			if !ok {
				k = len(m.Benchmarks)
				index[b.Name] = k
				m.Benchmarks = append(m.Benchmarks, MergeRow{Name: b.Name, Cells: make([]*MergeCell, len(runs))})
			}
			c := &MergeCell{Stats: b.Stats, Valid: b.Valid, Ratio: b.Ratio}
			m.Benchmarks[k].Cells[i] = c
			if i == 0 {
				first[b.Name] = b
			} else if base := first[b.Name]; base != nil && base.N > 0 && b.N > 0 {
				d := compareOne(base, b, nil) // machines differ on purpose: nothing is withheld for it
				if d.Change != nil {
					rel := 1 + *d.Change
					c.Relative = &rel
				}
				c.P, c.Significant = d.P, d.Significant
			}
		}
	}
	return m
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
	mc.Scheduling = "no scheduling report"
	for _, b := range r.Benchmarks {
		for _, run := range b.Runs {
			if s := run.Scheduling; s != nil {
				rb := s.Readback
				policy := rb.Policy.String()
				if rb.Policy.Realtime() {
					policy += fmt.Sprintf(":%d", rb.Priority)
				} else {
					policy += fmt.Sprintf(", nice %d", rb.Nice)
				}
				ladder := s.Ladder.Name
				if s.Ladder.AcceptedStep > 0 {
					ladder += fmt.Sprintf(" step %d (%s)", s.Ladder.AcceptedStep, s.Ladder.Steps[s.Ladder.AcceptedStep-1].Asked)
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

// cellText is a cell's median with its interval, ratio and relative.
func (c *MergeCell) text() (median, interval, ratio, relative string) {
	if c == nil {
		return "-", "-", "-", "-"
	}
	median, interval, ratio, relative = FormatSeconds(c.MedianS), "-", "-", "-"
	if c.N == 0 {
		median = "-"
	}
	if !c.Valid {
		median += " INVALID"
	}
	if c.CIConf > 0 {
		interval = FormatSeconds(c.CILowS) + "–" + FormatSeconds(c.CIHighS)
	}
	if c.Ratio != nil {
		ratio = fmt.Sprintf("%.3f", *c.Ratio)
	}
	if c.Relative != nil {
		relative = fmt.Sprintf("×%.3f", *c.Relative)
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
// row per benchmark, a column group per machine.
func (m Merge) WriteText(w io.Writer) error {
	for i, mc := range m.Machines {
		fmt.Fprintf(w, "[%d] %s: %s, %s, kernel %s\n", i+1, mc.Name, mc.Host.Hostname, mc.Host.CPUModel, mc.Host.Kernel)
		fmt.Fprintf(w, "    topology:   %s\n", mc.Topology)
		fmt.Fprintf(w, "    target:     %s, CPU %d (%s): %s\n", mc.Target.Spec, mc.Target.ExactCPU, mc.Target.Mode, mc.Target.Why)
		fmt.Fprintf(w, "    scheduling: %s\n", mc.Scheduling)
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
		line := row.Name
		for i, c := range row.Cells {
			med, ci, ratio, rel := c.text()
			line += "\t" + med + "\t" + ci + "\t" + ratio
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
		fmt.Fprintln(w, "\nVS [1]: the median over machine [1]'s; ~ marks no significant difference (Mann-Whitney U, α = 0.05).")
	}
	return nil
}

// WriteCSV writes one row per benchmark and machine.
func (m Merge) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"benchmark", "machine", "host", "target_cpu", "n", "median_s", "ci_low_s", "ci_high_s", "valid", "ratio", "relative_to_first", "p"})
	for _, row := range m.Benchmarks {
		for i, c := range row.Cells {
			if c == nil {
				continue
			}
			mc := m.Machines[i]
			cw.Write([]string{row.Name, mc.Name, mc.Host.Hostname, fmt.Sprint(mc.Target.ExactCPU), fmt.Sprint(c.N),
				fmtF(c.MedianS), fmtF(c.CILowS), fmtF(c.CIHighS), fmt.Sprint(c.Valid), optF(c.Ratio), optF(c.Relative), optF(c.P)})
		}
	}
	cw.Flush()
	return cw.Error()
}

func optF(v *float64) string {
	if v == nil {
		return ""
	}
	return fmtF(*v)
}
