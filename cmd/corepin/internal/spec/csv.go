package spec

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// runcpu's CSV report (csv.pl, written on request: -o csv) is read where
// no raw file is at hand. It holds, in order:
//
//	valid,1
//	"SPEC CPU2017 Integer Rate Result"
//	"Full Results Table"
//	Benchmark,"Base # Copies","Est. Base Run Time","Est. Base Rate","Base Selected","Base Status","Peak # Copies",…,Description
//	505.mcf_r,2,352.430000,9.170000,1,S,,,,,,"refrate(ref) iteration #1"
//	…
//	"Selected Results Table"
//	…
//	SPECrate2017_int_base,9.17
//	"Run number:",015
//
// with "# Threads" and "Ratio" for speed runs, "Est. " before the times
// and ratios of a run that was not reportable, and empty cells where a
// tuning did not run. The table gives no reference time: it is derived
// from the ratio and the time.

// ParseCSV reads runcpu's CSV report.
func ParseCSV(data []byte) (*Result, error) {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	p := &csvParser{r: &Result{}}
	for first := true; ; first = false {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			if first {
				return nil, errors.New("empty file: not SPEC's CSV report")
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading SPEC's CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if first {
			err = p.validRow(row)
		} else {
			err = p.row(row)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	if p.r.Runmode == "" {
		return nil, errors.New("no Full Results Table: not SPEC's CSV report")
	}
	p.r.placeIterations()
	sortIterations(p.r.Iterations)
	return p.r, nil
}

// csvParser reads the CSV row by row: the section a row is in, and its
// table's header.
type csvParser struct {
	r       *Result
	section string
	head    []string
}

// validRow reads the first row, valid,1 or valid,0.
func (p *csvParser) validRow(row []string) error {
	if len(row) < 2 || row[0] != "valid" {
		return errors.New("not SPEC's CSV report (it begins with valid,1 or valid,0)")
	}
	p.r.Invalid = row[1] != "1"
	return nil
}

// row reads one row after the first: a title, a table's name, header or
// row, the run's number, a means row, or a description of the machine,
// which is left alone. encoding/csv skips blank lines: a table ends where
// the next thing begins.
func (p *csvParser) row(row []string) error {
	cell := strings.TrimSpace(row[0])
	switch {
	case len(row) == 1 && strings.HasPrefix(cell, "SPEC ") && strings.HasSuffix(cell, " Result"):
		p.r.Metric = strings.TrimSuffix(strings.TrimPrefix(cell, "SPEC "), " Result")
		p.r.Suite = suiteOf(p.r.Metric)
	case cell == "Full Results Table" || cell == "Selected Results Table":
		p.section, p.head = cell, nil
	case cell == "Run number:" && len(row) > 1:
		p.r.Lognum = clipText(row[1])
	case meanRow().MatchString(cell):
		p.section = ""
		return p.r.setMean(row)
	case p.section == "" || cell == "":
		// the descriptions of the machine
	case p.head == nil:
		if cell != "Benchmark" {
			return fmt.Errorf("the table's header begins with %q, want Benchmark", clipText(cell))
		}
		p.head = row
		p.r.Runmode = runmodeOf(p.head)
	case p.section == "Full Results Table":
		return p.iterations(row)
	}
	return nil
}

// iterations reads a row of the full results table.
func (p *csvParser) iterations(row []string) error {
	its, err := csvIterations(p.head, row)
	if err != nil {
		return err
	}
	p.r.Iterations = append(p.r.Iterations, its...)
	if len(p.r.Iterations) > MaxIterations {
		return fmt.Errorf("more than %d iterations", MaxIterations)
	}
	return nil
}

// placeIterations numbers each benchmark's iterations at a tuning in the
// table's order: the CSV has no place of its own.
func (r *Result) placeIterations() {
	places := map[string]int{}
	for i := range r.Iterations {
		it := &r.Iterations[i]
		it.Index = places[it.Name()]
		places[it.Name()]++
	}
}

// suiteOf is the suite of a metric such as "CPU2017 Integer Rate":
// "cpu2017".
func suiteOf(metric string) string {
	word, _, _ := strings.Cut(metric, " ")
	return strings.ToLower(word)
}

// runmodeOf says from the table's header whether the run was rate
// (copies) or speed (threads).
func runmodeOf(head []string) string {
	for _, h := range head {
		switch {
		case strings.HasSuffix(h, "# Copies"):
			return "rate"
		case strings.HasSuffix(h, "# Threads"):
			return "speed"
		}
	}
	return "unknown"
}

// meanRow is a means row: SPECrate2017_int_base,9.17 (or "Not Run").
var meanRow = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^SPEC(rate|speed)\S*_(base|peak)$`) })

// setMean keeps a means row's figure.
func (r *Result) setMean(row []string) error {
	m := meanRow().FindStringSubmatch(strings.TrimSpace(row[0]))
	if m == nil || len(row) < 2 {
		return nil
	}
	v, err := number(row[1])
	if err != nil {
		return fmt.Errorf("%s: %w", row[0], err)
	}
	if m[2] == "base" {
		r.BaseMean = v
	} else {
		r.PeakMean = v
	}
	return nil
}

// iterationNumber is the description's "refrate(ref) iteration #2".
var iterationNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`iteration #(\d+)`) })

// csvIterations reads one row of the full results table: an iteration of
// each tuning that ran in it.
func csvIterations(head, row []string) ([]Iteration, error) {
	bench := strings.TrimSpace(row[0])
	if err := checkName(bench); err != nil {
		return nil, fmt.Errorf("benchmark: %w", err)
	}
	iter := -1
	if m := iterationNumber().FindStringSubmatch(row[len(row)-1]); m != nil {
		n, _ := strconv.Atoi(m[1])
		iter = n - 1
	}
	var out []Iteration
	for _, tune := range []string{"Base", "Peak"} {
		cells := csvCells{head, row, tune}
		status := cells.get("Status")
		if status == "" || status == "NR" {
			continue
		}
		it := Iteration{Benchmark: bench, Tune: strings.ToLower(tune), Number: iter, Copies: 1, Threads: 1, Valid: clipText(status), Selected: cells.get("Selected") == "1"}
		if status == "CE" {
			it.Number = -1 // not built, never run: as the raw file says it
		}
		if err := cells.figures(&it, runmodeOf(head)); err != nil {
			return nil, fmt.Errorf("%s %s %w", bench, tune, err)
		}
		out = append(out, it)
	}
	return out, nil
}

// csvCells are one tuning's cells of a row of the full results table.
type csvCells struct {
	head, row []string
	tune      string
}

// get is the cell under "<tune> <what>", "Est. " before it or not.
func (c csvCells) get(what string) string {
	for i, h := range c.head {
		h = strings.TrimPrefix(strings.TrimSpace(h), "Est. ")
		if i < len(c.row) && strings.EqualFold(h, c.tune+" "+what) {
			return strings.TrimSpace(c.row[i])
		}
	}
	return ""
}

// figures reads the tuning's copies or threads, time and ratio, and
// derives the reference, which the table does not give, from them.
func (c csvCells) figures(it *Iteration, runmode string) error {
	count, err := integer(c.get("# Copies") + c.get("# Threads"))
	if err != nil {
		return fmt.Errorf("copies: %w", err)
	}
	if count != nil && *count >= 0 {
		if runmode == "rate" {
			it.Copies = *count
		} else {
			it.Threads = *count
		}
	}
	if it.ReportedS, err = number(c.get("Run Time")); err != nil {
		return fmt.Errorf("run time: %w", err)
	}
	if it.Ratio, err = number(c.get("Rate") + c.get("Ratio")); err != nil {
		return fmt.Errorf("ratio: %w", err)
	}
	if it.Ratio != nil && it.ReportedS != nil && it.Copies > 0 {
		ref := *it.Ratio * *it.ReportedS / float64(it.Copies)
		it.ReferenceS, it.ReferenceDerived = &ref, true
	}
	return nil
}
