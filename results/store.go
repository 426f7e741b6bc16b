package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/inputfile"
	"corepin.dev/corepin/internal/termsafe"
)

// Folder is a results folder, DIR/<timestamp>-<host>/.
type Folder struct {
	Path string
}

// Create makes a new results folder under base and checks that it can be
// written before any benchmark runs.
func Create(base, host string, now time.Time) (*Folder, error) {
	if err := atomicfile.CheckFolder(base); err != nil {
		return nil, fmt.Errorf("creating the results folder: %w", err)
	}
	name := now.Format("20060102-150405") + "-" + safeName(host)
	path := filepath.Join(base, name)
	for i := 2; ; i++ {
		err := os.Mkdir(path, 0o755)
		if err == nil {
			break
		}
		if !os.IsExist(err) {
			return nil, fmt.Errorf("creating the results folder: %w", err)
		}
		path = filepath.Join(base, fmt.Sprintf("%s-%d", name, i))
	}
	if err := os.Mkdir(filepath.Join(path, "telemetry"), 0o755); err != nil {
		os.RemoveAll(path)
		return nil, fmt.Errorf("creating the results folder: %w", err)
	}
	return &Folder{Path: path}, nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// DropEmptyTelemetry removes the folder's telemetry/ where nothing was
// written into it: an imported run without curves keeps no empty folder.
func (f *Folder) DropEmptyTelemetry() {
	os.Remove(filepath.Join(f.Path, "telemetry")) // fails, and keeps it, where it holds a file
}

// WriteFile writes a file of the folder atomically: a reader, or a run
// that is interrupted, never leaves half a file.
func (f *Folder) WriteFile(rel string, write func(io.Writer) error) error {
	return atomicfile.Write(filepath.Join(f.Path, rel), write)
}

// Save writes run.json, summary.csv and bench.txt, each atomically and
// flushed to the disk. A disk that is full gets the folder's reserve
// back (see Reserve) and the save is tried once more; once a run is
// saved at its end, the reserve is given back anyway.
func (f *Folder) Save(r *Run) error {
	err := f.save(r)
	if full(err) && f.release() {
		err = f.save(r)
	}
	if err == nil && r.State != StateRunning {
		f.release()
	}
	return err
}

// save writes the run's three files.
func (f *Folder) save(r *Run) error {
	return atomicfile.WriteFiles(
		atomicfile.File{Path: filepath.Join(f.Path, "run.json"), Write: r.writeJSON},
		atomicfile.File{Path: filepath.Join(f.Path, "summary.csv"), Write: r.WriteSummaryCSV},
		atomicfile.File{Path: filepath.Join(f.Path, "bench.txt"), Write: r.WriteBenchFormat},
	)
}

// SaveRun writes run.json alone: at the start of a run, with its state
// and plan but no result yet.
func (f *Folder) SaveRun(r *Run) error {
	return f.WriteFile("run.json", r.writeJSON)
}

// writeJSON writes the run as run.json holds it: every string with its
// exact bytes, and nothing in the file that a terminal showing it would
// act on (termsafe.JSON escapes what encoding/json leaves raw).
func (r *Run) writeJSON(w io.Writer) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(termsafe.JSON(append(data, '\n')))
	return err
}

// MaxRunFile bounds the size of a run.json that Load reads.
const MaxRunFile = 256 << 20

// Load reads a results folder's run.json (or a run.json given directly).
// A run still marked running takes its completed runs from the folder's
// journal, and is called crashed when its writer is gone; the statistics
// are computed again from what completed, so that nothing unfinished is
// ever read as a result. Its files are read only from inside the folder
// (see OpenIn).
func Load(path string) (*Run, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "run.json")
	}
	data, err := readBounded(path, MaxRunFile)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	r, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("reading results %s: %w", path, err)
	}
	if r.State == StateRunning {
		if j, err := OpenIn(filepath.Dir(path), JournalFile); err == nil {
			err = replay(r, j)
			j.Close()
			if err != nil {
				return nil, fmt.Errorf("reading results %s: %w", path, err)
			}
		}
		if r.Writer.Gone("/") {
			r.State = StateCrashed
		}
		r.Settle()
	}
	return r, nil
}

// Parse reads the content of a run.json. It checks what the views rely
// on, so that no file, however made, can make them fail.
func Parse(data []byte) (*Run, error) {
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(r.Schema, "corepin.run/") {
		return nil, fmt.Errorf("not a corepin run (schema %q)", r.Schema)
	}
	if r.Schema != Schema {
		return nil, &SchemaError{Schema: r.Schema}
	}
	if r.State == "" { // written before run states existed
		r.legacyState()
	}
	return &r, nil
}

// SchemaError is a run.json of a schema version this corepin does not
// read: keys keep their meaning only within a version, so a newer
// corepin's file is refused rather than misread.
type SchemaError struct{ Schema string }

func (e *SchemaError) Error() string {
	return fmt.Sprintf("schema %q is not one this corepin reads (it reads %s): a newer corepin wrote it", e.Schema, Schema)
}

// legacyState gives a run.json written before run states one: the old
// format kept placeholders for runs that never happened (no start time),
// which are dropped here.
func (r *Run) legacyState() {
	switch {
	case r.Interrupted:
		r.State = StateInterrupted
	case r.Finished == nil:
		r.State = StateCrashed
	default:
		r.State = StateFinished
	}
	dropped := false
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		kept := b.Runs[:0]
		for _, run := range b.Runs {
			if !run.Started.IsZero() {
				kept = append(kept, run)
			}
		}
		dropped = dropped || len(kept) < len(b.Runs)
		b.Runs = kept
	}
	if dropped || r.State != StateFinished {
		r.Settle()
	}
}

// Settle summarises every benchmark from the runs it holds and scores the
// run; the run's warnings say when it did not finish.
func (r *Run) Settle() {
	for i := range r.Benchmarks {
		r.Benchmarks[i].Summarize()
	}
	r.ComputeScore()
	if note := r.StateNote(); note != "" && !slices.ContainsFunc(r.Warnings, func(w Warning) bool { return w.Text == note }) {
		r.Warnings = append(r.Warnings, Warning{Run: NoRun, Kind: KindState, Text: note})
	}
}

// Recover settles a crashed run for good: run.json, summary.csv and
// bench.txt are rewritten from the journal, marked crashed. A run that
// is not crashed is left as it is. Only the guard of the corepin that
// crashed calls it (RecordGuarded): a view (report, compare, merge) never
// writes a folder, and Load settles a crashed run in memory each time.
func (f *Folder) Recover(r *Run) error {
	if r.State != StateCrashed {
		return nil
	}
	return f.Save(r)
}

// OpenIn opens the file rel of the results folder dir for reading, never
// outside it: rel must be a local path, and neither it nor a symbolic link
// on its way may lead out of the folder (os.Root). A folder may come from
// anyone, and corepin often reads it as root: a telemetry file linked to
// /etc/shadow must not end up in a page. Only a regular file is opened,
// and the open never waits (a FIFO in the folder must not hang a view).
func OpenIn(dir, rel string) (*os.File, error) {
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%q is not a path inside the results folder", rel)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return inputfile.OpenIn(root, rel)
}

// readBounded reads a results file (run.json) of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	file, err := OpenIn(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d MB", path, limit>>20)
	}
	return data, nil
}

// WriteSummaryCSV writes one row per benchmark: its wall time's figures
// in seconds first, then what it is judged by (measure, unit, better:
// the wall time again, or its own measure) with its figures in it.
func (r *Run) WriteSummaryCSV(w io.Writer) error {
	cw := newCSV(w)
	cw.Write([]string{"name", "valid", "n", "median_s", "ci_low_s", "ci_high_s", "min_s", "max_s", "cv", "reference_s", "ratio", "warnings",
		"completed_runs", "planned_runs", "run_state",
		"measure", "unit", "better", "median", "ci_low", "ci_high", "min", "max", "value_cv", "reference"})
	for _, b := range r.Benchmarks {
		ratio, reference := "", "" // none: an empty cell, never 0
		if b.Ratio != nil {
			ratio = fmtF(*b.Ratio)
		}
		if b.ReferenceS > 0 {
			reference = fmtF(b.ReferenceS)
		}
		// A benchmark without a completed run has no times: empty cells.
		t := func(v float64) string {
			if b.N == 0 {
				return ""
			}
			return fmtF(v)
		}
		m, fig := b.Figures()
		f := func(v float64) string {
			if fig.N == 0 {
				return ""
			}
			return fmtF(v)
		}
		figReference := ""
		if ref := b.reference(); ref > 0 {
			figReference = fmtF(ref)
		}
		cw.Write([]string{b.Name, strconv.FormatBool(b.Valid), strconv.Itoa(b.N), t(b.MedianS), t(b.CILowS), t(b.CIHighS),
			t(b.MinS), t(b.MaxS), t(b.CV), reference, ratio, strings.Join(WarningTexts(b.Warnings), "; "),
			strconv.Itoa(b.CompletedRuns), strconv.Itoa(b.PlannedRuns), r.State,
			m.Name, m.Unit, m.Better, f(fig.Median), f(fig.CILow), f(fig.CIHigh), f(fig.Min), f(fig.Max), f(fig.CV), figReference})
	}
	cw.Flush()
	return cw.Error()
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// WriteBenchFormat writes the counted runs in the Go benchmark format
// (golang.org/design/14313-benchmark-format), one line per run, so that
// benchstat can read and compare them.
func (r *Run) WriteBenchFormat(w io.Writer) error {
	var b bytes.Buffer
	// A value is one line, and shown safe: a run read from a folder
	// holds anything.
	t := termsafe.Text
	fmt.Fprintf(&b, "goos: linux\ncpu: %s\n", t(r.Host.CPUModel))
	if r.Imported() {
		fmt.Fprintf(&b, "corepin-source: %s\ncorepin-target: not-recorded\n", benchWord(r.Source.Tool))
	} else {
		fmt.Fprintf(&b, "corepin-target: %d\ncorepin-mode: %s\ncorepin-isolation: %s\n", r.Target.ExactCPU, t(string(r.Target.Mode)), t(r.Options.Isolation))
	}
	// benchstat shows configuration lines: an unfinished run says so.
	fmt.Fprintf(&b, "corepin-state: %s\n", t(r.State))
	// A measure of a benchmark's own says which way is better as the
	// format's unit metadata (benchfmt.UnitMetadata): benchstat knows
	// ns/op, not nodes/s.
	units := map[string]bool{}
	for _, bm := range r.Benchmarks {
		m, _ := bm.Figures()
		if m == WallTime || units[benchUnit(m.Unit)] || (m.Better != HigherIsBetter && m.Better != LowerIsBetter) {
			continue
		}
		units[benchUnit(m.Unit)] = true
		fmt.Fprintf(&b, "Unit %s better=%s\n", benchUnit(m.Unit), m.Better)
	}
	for _, bm := range r.Benchmarks {
		name := BenchName(bm.Name)
		m, _ := bm.Figures()
		for _, run := range bm.Runs {
			if run.Warmup || run.Error != "" {
				continue
			}
			var values []string
			if wall, ok := run.valueIn(WallTime); ok {
				values = append(values, fmt.Sprintf("%.0f ns/op", wall*1e9))
			}
			if v, ok := run.valueIn(m); ok && m != WallTime {
				values = append(values, strconv.FormatFloat(v, 'g', -1, 64)+" "+benchUnit(m.Unit))
			}
			if len(values) > 0 {
				fmt.Fprintf(&b, "%s\t1\t%s\n", name, strings.Join(values, "\t"))
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// benchUnit is a unit as the Go benchmark format writes it: one word,
// shown safe.
func benchUnit(unit string) string {
	if unit = benchWord(unit); unit == "" {
		return "value"
	}
	return unit
}

// benchWord is a text as one word of the Go benchmark format: shown safe,
// its white space written as _.
func benchWord(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, termsafe.Text(s))
}

// BenchName is a benchmark's name in the Go benchmark format:
// "fib" becomes "BenchmarkFib". The format's name is one field, so a name
// read from a folder is shown safe (termsafe.Text) and its spaces become
// underscores.
func BenchName(name string) string {
	name = benchWord(name)
	first, size := utf8.DecodeRuneInString(name)
	if size == 0 {
		return "Benchmark"
	}
	return "Benchmark" + string(unicode.ToUpper(first)) + name[size:]
}
