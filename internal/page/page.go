// Package page turns a results folder into a self-contained HTML page:
// the run's facts and warnings, a table of the benchmarks, and for each
// benchmark two stacked charts — the target CPUs' average
// reported frequency above, their utilisation below, raw samples, nothing
// smoothed — with the data behind each chart one click away. The page has
// no scripts, fonts or network references; every string from the results
// is escaped, and shown safe (see text).
package page

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/results"
)

//go:embed page.html.tmpl
var pageTemplate string

// page is parsed on first use, not at start-up: every corepin command links
// this package, and most never draw a page.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.Must(template.New("page").Funcs(template.FuncMap{
		"seconds": fmtSeconds,
		"pct":     func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) },
		"opt":     fmtOpt,
		"text":    text,
	}).Parse(styleTemplate)).Parse(pageTemplate))
})

// text is how the templates show every string: html/template escapes
// HTML, but would carry an ESC, a carriage return or a bidi override from
// a results folder into the page; termsafe.Text shows them instead.
func text(v any) string { return termsafe.Text(fmt.Sprint(v)) }

// Page is what the template shows.
type Page struct {
	Title      string
	Heading    string
	Run        *results.Run
	Unfinished string // what an unfinished run holds; "" when it finished
	Started    string
	Score      string
	Scheduling []Fact
	Warnings   []string
	Rows       []Row
	Benchmarks []Section
	Heatmap    template.HTML
	HeatNote   string
	Links      []Link
	Extra      []template.HTML // charts other views add (compare, experiments)
	// Facts and Summary are an imported run's header and benchmark
	// table (see imported.go).
	Facts   []Fact
	Summary Grid
}

// Fact is one labelled fact of the header.
type Fact struct{ Label, Value string }

// Link is a file of the results folder.
type Link struct{ Name, Href string }

// Row is one line of the benchmark table.
type Row struct {
	Name, Median, CI, Ratio, Check, Residency, Ladder, Restore string
	// Measure is what the figures are of: "wall time", or a measure with
	// its unit and which way is better.
	Measure  string
	Valid    bool
	Warnings int
}

// Section is one benchmark's charts and data.
type Section struct {
	ID, Name, Description string
	FreqChart             template.HTML
	FreqNote              string
	UtilChart             template.HTML
	SpeedChart            template.HTML // run time against the speed probe after it
	SpeedNote             string
	Table                 Table
	Runs                  []RunRow
	Measured              bool // the runs have values of the benchmark's own measure
	Links                 []Link
	Warnings              []string
	// HasSamples: the benchmark's runs have telemetry to draw; RunGrid
	// is an imported run's table of its runs.
	HasSamples bool
	RunGrid    Grid
}

// Table is the data behind a benchmark's charts.
type Table struct {
	Header []string
	Rows   [][]string
}

// RunRow is one run in a benchmark's run table.
type RunRow struct {
	Index, Time, Check, CPU, Residency, Migrations, Ladder, Note string
	// Value is the run's value in the benchmark's own measure, "" for a
	// benchmark judged by its wall time.
	Value string
	// Speed is the run's own speed against its benchmark's best run;
	// Probe the speed probe's reading after it (and before it, in an
	// older corepin's run), a reading of the core then; Steal the
	// hypervisor's time on the target.
	Speed, Probe, Steal   string
	Warmup, Valid, Slowed bool
	Dropped               bool
}

// Write renders the page of a run whose folder is dir.
func Write(w io.Writer, run *results.Run, dir string) error {
	p := Build(run, dir)
	return p.Render(w)
}

// Render writes the page.
func (p *Page) Render(w io.Writer) error {
	var buf bytes.Buffer
	if err := page().Execute(&buf, p); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteFile writes report.html into the results folder and returns its path.
func WriteFile(dir string, run *results.Run) (string, error) {
	path := filepath.Join(dir, "report.html")
	return path, atomicfile.Write(path, func(w io.Writer) error { return Write(w, run, dir) })
}

// Build assembles the page model.
func Build(run *results.Run, dir string) *Page {
	p := &Page{Run: run, Title: "corepin run " + run.Started.UTC().Format("2006-01-02 15:04:05 UTC"),
		Heading: "corepin · " + run.Host.Label() + " · " + run.Host.CPUModel}
	p.Started = run.Started.UTC().Format(time.RFC3339)
	if run.Imported() {
		p.Title = "corepin: " + run.Source.Describe()
		p.Heading = strings.Join(nonEmpty("corepin", run.Source.Describe(), run.Host.CPUModel), " · ")
		p.Facts, p.Summary = importFacts(run), importSummary(run)
	}
	p.Unfinished = run.StateNote()
	if run.Score != nil {
		p.Score = fmt.Sprintf("%.0f", *run.Score)
	}
	p.Scheduling = schedulingFacts(run)
	for _, l := range run.System.Lines() {
		p.Scheduling = append(p.Scheduling, Fact{l.Label, l.Value})
	}
	p.Warnings = run.GroupedWarnings()
	target := targetCPUs(run)
	maxMHz := targetMaxMHz(run, target)
	var all []sample
	for i, b := range run.Benchmarks {
		p.Rows = append(p.Rows, row(b))
		sec, samples := section(b, i, dir, target, maxMHz, run.Started)
		if run.Imported() {
			sec.RunGrid = importRuns(run, b)
		}
		p.Benchmarks = append(p.Benchmarks, sec)
		all = append(all, samples...)
	}
	p.Heatmap, p.HeatNote = heatmap(all, run)
	p.Links = []Link{{"run.json", "run.json"}, {"summary.csv", "summary.csv"}, {"bench.txt", "bench.txt"}}
	if run.Imported() && filepath.IsLocal(run.Source.File) {
		p.Links = append(p.Links, Link{run.Source.Name, run.Source.File})
	}
	return p
}

func targetCPUs(run *results.Run) []int { return run.Target.CPUs().CPUs() }

func targetMaxMHz(run *results.Run, target []int) float64 {
	m := 0.0
	if run.Topology == nil {
		return 0
	}
	for _, c := range target {
		if cpu := run.Topology.CPU(c); cpu != nil && cpu.MaxMHz != nil {
			m = math.Max(m, *cpu.MaxMHz)
		}
	}
	return m
}

// schedulingFacts describes what the first run's thread asked for and read
// back; the table shows where later runs differed.
func schedulingFacts(run *results.Run) []Fact {
	for _, b := range run.Benchmarks {
		for _, r := range b.Runs {
			s := r.Scheduling
			if s == nil {
				continue
			}
			rb := s.Readback
			policy := rb.PolicyText()
			uclamp := "unsupported by this kernel"
			if rb.Uclamp.Supported && rb.Uclamp.Min != nil {
				uclamp = fmt.Sprintf("%d/%d", *rb.Uclamp.Min, *rb.Uclamp.Max)
			}
			ladder := s.Ladder.Name
			if st := s.Ladder.Held(); st != nil {
				ladder += fmt.Sprintf(": step %d held (%s)", s.Ladder.AcceptedStep, st.Asked)
			} else if len(s.Ladder.Steps) > 0 {
				ladder += ": no step held"
			}
			var tried []string
			for _, st := range s.Ladder.Steps {
				switch {
				case st.Skipped != "":
					tried = append(tried, fmt.Sprintf("%d %s: skipped", st.Step, st.Asked))
				case st.Errno != "":
					tried = append(tried, fmt.Sprintf("%d %s: %s", st.Step, st.Asked, st.Errno))
				case st.Mismatch != "":
					tried = append(tried, fmt.Sprintf("%d %s: %s", st.Step, st.Asked, st.Mismatch))
				}
			}
			facts := []Fact{
				{"Ladder", ladder},
				{"Read back", fmt.Sprintf("mask %s, on CPU %d, %s", rb.CPUs, rb.CPU, policy)},
				{"uclamp", uclamp},
				{"Acceptance", fmt.Sprintf("%s: %s", s.Accept.Rule, s.Accept.Why)},
			}
			if len(tried) > 0 {
				facts = append(facts, Fact{"Steps refused", strings.Join(tried, "; ")})
			}
			return facts
		}
	}
	return nil
}

func row(b results.Benchmark) Row {
	m, fig := b.Figures()
	r := Row{Name: b.Name, Measure: b.MeasureText(), Median: fig.MedianText(m), CI: fig.Interval(m), Ratio: "-", Check: "passed", Valid: b.Valid, Warnings: len(b.Warnings)}
	if b.Ratio != nil {
		r.Ratio = fmt.Sprintf("%.3f", *b.Ratio)
	}
	if !b.Valid {
		r.Check = "FAILED"
	}
	var on, running, worst, restoreBad int
	worst = -1
	for _, run := range b.Runs {
		s := run.Scheduling
		if run.Warmup || s == nil {
			continue
		}
		if s.Watch != nil {
			for _, t := range s.Watch.Threads {
				on += t.OnTarget
				running += t.Running
			}
		}
		if s.Ladder.AcceptedStep > worst {
			worst = s.Ladder.AcceptedStep
		}
		if s.Restore.Done && !s.Restore.OK {
			restoreBad++
		}
	}
	r.Residency = "-"
	if running > 0 {
		r.Residency = fmt.Sprintf("%.1f%% of %d", 100*float64(on)/float64(running), running)
	}
	r.Ladder = "-"
	if worst > 0 {
		r.Ladder = fmt.Sprintf("step %d", worst)
	} else if worst == 0 {
		r.Ladder = "none held"
	}
	r.Restore = "verified"
	if restoreBad > 0 {
		r.Restore = fmt.Sprintf("FAILED in %d runs", restoreBad)
	}
	return r
}

// section builds a benchmark's charts from its runs' telemetry, laid end
// to end on the time each run started.
func section(b results.Benchmark, i int, dir string, target []int, maxMHz float64, runStart time.Time) (Section, []sample) {
	sec := Section{ID: fmt.Sprintf("b%d", i), Name: b.Name, Description: b.Description, Warnings: results.WarningTexts(b.Warnings)}
	if m, _ := b.Figures(); m != results.WallTime {
		sec.Measured = true
		sec.Description = strings.TrimSpace(sec.Description + " Judged by " + m.Describe() + "; its wall time is kept beside.")
	}
	var first time.Time
	for _, r := range b.Runs {
		if !r.Started.IsZero() && (first.IsZero() || r.Started.Before(first)) {
			first = r.Started
		}
	}
	var benchSamples, runSamples []sample
	sources := map[string]bool{}
	var notes []string
	for _, r := range b.DroppedRuns {
		rr := runRow(b, r)
		rr.Dropped, rr.Note = true, r.Dropped
		sec.Runs = append(sec.Runs, rr)
	}
	for _, r := range b.Runs {
		sec.Runs = append(sec.Runs, runRow(b, r))
		samples, err := readCSV(dir, r.TelemetryCSV)
		if err != nil {
			notes = append(notes, fmt.Sprintf("run %d: telemetry unreadable (%v)", r.Index, err))
			continue
		}
		if r.TelemetryCSV != "" && filepath.IsLocal(r.TelemetryCSV) {
			sec.Links = append(sec.Links, Link{Name: filepath.Base(r.TelemetryCSV), Href: r.TelemetryCSV})
		}
		offB, offR := r.Started.Sub(first).Seconds(), r.Started.Sub(runStart).Seconds()
		for _, s := range samples {
			sb, sr := s, s
			sb.t, sr.t = s.t+offB, s.t+offR
			benchSamples = append(benchSamples, sb)
			runSamples = append(runSamples, sr)
			if !math.IsNaN(s.freq) {
				sources[s.source] = true
			}
		}
	}
	ins := instants(benchSamples)
	label := "CPU " + joinInts(target)
	var freq []Point
	utils := make([][]Point, len(target))
	for _, in := range ins {
		freq = append(freq, Point{in.t, meanOf(in.freq, target) / 1000})
		for k, c := range target {
			v := math.NaN()
			if u, ok := in.util[c]; ok {
				v = u
			}
			utils[k] = append(utils[k], Point{in.t, v})
		}
	}
	gap := 0.0
	if len(ins) > 1 {
		gap = 3 * medianStep(ins)
	}
	sec.HasSamples = len(benchSamples) > 0
	switch {
	case !sec.HasSamples:
		sec.FreqNote = "No telemetry was recorded for this benchmark: there are no curves of its CPUs."
	case len(sources) == 0:
		sec.FreqNote = "This machine reports no CPU frequency (no cpufreq, no other source), so there is no frequency curve: nothing is drawn rather than zeros."
	default:
		lines := []Line{{Name: "average reported frequency", Points: freq, Color: Color(0)}}
		yMax := 0.0
		if maxMHz > 0 {
			lines = append(lines, Line{Name: fmt.Sprintf("maximum %.2f GHz", maxMHz/1000), Dashed: true, Color: "#57606a",
				Points: []Point{{0, maxMHz / 1000}, {lastT(ins), maxMHz / 1000}}})
			yMax = maxMHz / 1000 * 1.1
		}
		sec.FreqChart = LineChart{Title: label + " average reported frequency · GHz", XLabel: "time in the benchmark window / s", YLabel: "GHz",
			Lines: lines, GapAfter: gap, YMax: yMax}.SVG()
		var names []string
		for s := range sources {
			names = append(names, s)
		}
		sort.Strings(names)
		sec.FreqNote = "Frequency source: " + strings.Join(names, ", ") + "."
		if sources["proc_cpuinfo"] {
			sec.FreqNote += ` "cpu MHz" of /proc/cpuinfo is a rough value; in a VM it is often the host's nominal clock.`
		}
	}
	var ulines []Line
	for k, c := range target {
		ulines = append(ulines, Line{Name: fmt.Sprintf("CPU %d", c), Points: utils[k], Color: Color(k + 1)})
	}
	sec.UtilChart = LineChart{Title: label + " utilisation · %", XLabel: "time in the benchmark window / s", YLabel: "%",
		YMin: 0, YMax: 100, Lines: ulines, GapAfter: gap}.SVG()
	sec.Table.Header = []string{"t / s", "avg freq / GHz"}
	for _, c := range target {
		sec.Table.Header = append(sec.Table.Header, fmt.Sprintf("CPU %d util / %%", c))
	}
	for _, in := range ins {
		r := []string{fmt.Sprintf("%.2f", in.t), fmtNaN(meanOf(in.freq, target)/1000, "%.3f")}
		for _, c := range target {
			v := math.NaN()
			if u, ok := in.util[c]; ok {
				v = u
			}
			r = append(r, fmtNaN(v, "%.1f"))
		}
		sec.Table.Rows = append(sec.Table.Rows, r)
	}
	if len(notes) > 0 {
		sec.Warnings = append(sec.Warnings, notes...)
	}
	sec.SpeedChart, sec.SpeedNote = speedScatter(b)
	return sec, runSamples
}

func runRow(b results.Benchmark, r results.RunRecord) RunRow {
	rr := RunRow{Index: fmt.Sprint(r.Index), Time: fmtSeconds(r.WallS), Check: "passed", Warmup: r.Warmup, Valid: r.Valid,
		CPU: "-", Residency: "-", Migrations: "-", Ladder: "-", Note: r.Error, Speed: "-", Probe: "-", Steal: "-", Slowed: r.Slowed()}
	if m, _ := b.Figures(); m != results.WallTime {
		rr.Value = "-"
		if r.Value != nil {
			rr.Value = m.Format(*r.Value)
		}
	}
	if s, ok := r.OwnSpeed(); ok {
		rr.Speed = fmt.Sprintf("%.2f", s)
	}
	switch {
	case r.SpeedBefore != nil:
		rr.Probe = speedFigure(r.SpeedBefore) + " → " + speedFigure(r.SpeedAfter)
	case r.SpeedAfter != nil:
		rr.Probe = speedFigure(r.SpeedAfter)
	}
	if r.Slowed() {
		rr.Note = strings.TrimSpace(rr.Note + " " + r.SpeedText())
	}
	if r.StealS != nil {
		rr.Steal = fmtSeconds(*r.StealS)
	}
	if !r.Valid {
		rr.Check = "failed"
		for _, c := range r.Checks {
			if !c.Passed && (c.Detail == "" || !strings.Contains(rr.Note, c.Detail)) { // the error may say it already
				rr.Note = strings.TrimSpace(rr.Note + " " + c.What + ": " + c.Detail)
			}
		}
	}
	if s := r.Scheduling; s != nil {
		rr.CPU = fmt.Sprintf("%d (mask %s)", s.Readback.CPU, s.Readback.CPUs)
		if s.Watch != nil {
			if s.Watch.OnTargetRatio != nil {
				rr.Residency = fmt.Sprintf("%.1f%%", 100**s.Watch.OnTargetRatio)
			}
			rr.Migrations = fmt.Sprint(s.Watch.Migrations)
		}
		if s.Ladder.AcceptedStep > 0 {
			rr.Ladder = fmt.Sprintf("%s step %d", s.Ladder.Name, s.Ladder.AcceptedStep)
		}
	}
	return rr
}

func speedFigure(v *float64) string {
	if v == nil {
		return "?"
	}
	return fmt.Sprintf("%.2f", *v)
}

// heatmap bins every CPU's utilisation over the whole run.
func heatmap(all []sample, run *results.Run) (template.HTML, string) {
	if len(all) == 0 {
		return "", "No telemetry was recorded."
	}
	cpuSet := map[int]bool{}
	tmax := 0.0
	for _, s := range all {
		cpuSet[s.cpu] = true
		tmax = math.Max(tmax, s.t)
	}
	var cpus []int
	for c := range cpuSet {
		cpus = append(cpus, c)
	}
	sort.Ints(cpus)
	bins := int(math.Min(300, math.Max(1, math.Ceil(tmax/math.Max(run.Options.TelemetryPeriod, 0.05)))))
	binS := math.Max(tmax/float64(bins), 1e-3)
	sum := make([][]float64, len(cpus))
	cnt := make([][]int, len(cpus))
	idx := map[int]int{}
	for i, c := range cpus {
		idx[c] = i
		sum[i], cnt[i] = make([]float64, bins), make([]int, bins)
	}
	for _, s := range all {
		if math.IsNaN(s.util) {
			continue
		}
		b := min(int(s.t/binS), bins-1)
		sum[idx[s.cpu]][b] += s.util
		cnt[idx[s.cpu]][b]++
	}
	cells := make([][]float64, len(cpus))
	var rows []string
	for i, c := range cpus {
		rows = append(rows, fmt.Sprintf("CPU %d", c))
		cells[i] = make([]float64, bins)
		for b := range bins {
			cells[i][b] = math.NaN()
			if cnt[i][b] > 0 {
				cells[i][b] = sum[i][b] / float64(cnt[i][b])
			}
		}
	}
	return Heatmap{Title: "Utilisation of every CPU over the whole run · %", Rows: rows, Cells: cells, BinS: binS,
		XLabel: "time since the run started / s"}.SVG(), "Darker is busier; blank is no sample (between benchmarks, or a CPU offline)."
}

func medianStep(ins []instant) float64 {
	var d []float64
	for i := 1; i < len(ins); i++ {
		d = append(d, ins[i].t-ins[i-1].t)
	}
	sort.Float64s(d)
	return d[len(d)/2]
}

func lastT(ins []instant) float64 {
	if len(ins) == 0 {
		return 1
	}
	return ins[len(ins)-1].t
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, "/")
}

func fmtNaN(v float64, f string) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf(f, v)
}

func fmtOpt(v *float64, f string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(f, *v)
}

func fmtSeconds(s float64) string { return results.FormatSeconds(s) }
