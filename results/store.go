package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"corepin.dev/corepin/internal/atomicfile"
)

// Folder is a results folder, DIR/<timestamp>-<host>/.
type Folder struct {
	Path string
}

// Create makes a new results folder under base and checks that it can be
// written before any benchmark runs.
func Create(base, host string, now time.Time) (*Folder, error) {
	if err := os.MkdirAll(base, 0o755); err != nil {
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

// WriteFile writes a file of the folder atomically: a reader, or a run
// that is interrupted, never leaves half a file.
func (f *Folder) WriteFile(rel string, write func(io.Writer) error) error {
	return atomicfile.Write(filepath.Join(f.Path, rel), write)
}

// Save writes run.json, summary.csv and bench.txt, each atomically and
// flushed to the disk.
func (f *Folder) Save(r *Run) error {
	return atomicfile.WriteFiles(
		atomicfile.File{Path: filepath.Join(f.Path, "run.json"), Write: func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		}},
		atomicfile.File{Path: filepath.Join(f.Path, "summary.csv"), Write: r.WriteSummaryCSV},
		atomicfile.File{Path: filepath.Join(f.Path, "bench.txt"), Write: r.WriteBenchFormat},
	)
}

// Load reads a results folder's run.json (or a run.json given directly).
func Load(path string) (*Run, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "run.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("reading results %s: %w", path, err)
	}
	if !strings.HasPrefix(r.Schema, "corepin.run/") {
		return nil, fmt.Errorf("reading results %s: not a corepin run (schema %q)", path, r.Schema)
	}
	return &r, nil
}

// WriteSummaryCSV writes one row per benchmark.
func (r *Run) WriteSummaryCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "valid", "n", "median_s", "ci_low_s", "ci_high_s", "min_s", "max_s", "cv", "reference_s", "ratio", "warnings"})
	for _, b := range r.Benchmarks {
		ratio := ""
		if b.Ratio != nil {
			ratio = fmtF(*b.Ratio)
		}
		cw.Write([]string{b.Name, strconv.FormatBool(b.Valid), strconv.Itoa(b.N), fmtF(b.MedianS), fmtF(b.CILowS), fmtF(b.CIHighS),
			fmtF(b.MinS), fmtF(b.MaxS), fmtF(b.CV), fmtF(b.ReferenceS), ratio, strings.Join(WarningTexts(b.Warnings), "; ")})
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
	fmt.Fprintf(&b, "goos: linux\ncpu: %s\n", r.Host.CPUModel)
	fmt.Fprintf(&b, "corepin-target: %d\ncorepin-mode: %s\ncorepin-isolation: %s\n", r.Target.ExactCPU, r.Target.Mode, r.Options.Isolation)
	for _, bm := range r.Benchmarks {
		name := BenchName(bm.Name)
		for _, run := range bm.Runs {
			if run.Warmup || run.Error != "" {
				continue
			}
			fmt.Fprintf(&b, "%s\t1\t%.0f ns/op\n", name, run.WallS*1e9)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// BenchName is a benchmark's name in the Go benchmark format:
// "fib" becomes "BenchmarkFib".
func BenchName(name string) string {
	if name == "" {
		return "Benchmark"
	}
	return "Benchmark" + strings.ToUpper(name[:1]) + name[1:]
}
