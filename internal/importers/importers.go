// Package importers reads the result files other benchmark tools write —
// hyperfine's and pyperf's JSON, Geekbench's export — into corepin's one
// result model, so that report, compare and merge take them as they take
// corepin's own runs. Each file's own figures are read as the tool means
// them (hyperfine's times in seconds, pyperf's values per loop, multiplied
// back, Geekbench's scores, higher better); what the file says of itself
// and its machine is kept in the run's source metadata, and the file
// itself byte for byte beside run.json. Nothing here says where the work
// ran: corepin did not watch it, and an imported run says so.
package importers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"time"

	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// Tools are the tools whose files corepin imports, each a run's kind.
var Tools = []string{results.KindHyperfine, results.KindPyperf, results.KindGeekbench}

// FormatError is a file that is not what its tool writes: its content,
// not its reading, is at fault.
type FormatError struct {
	Tool, Name string
	Msg        string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s is not %s's JSON: %s", e.Name, e.Tool, e.Msg)
}

// InputError is a file list Import cannot take: a file that cannot be
// read, is not a regular file, is too large, or is not the tool's (a
// *FormatError inside), two files of one name, or several files of a tool
// whose one file holds all its runs. The command line is at fault, not
// corepin: exit 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Parse reads a file that tool wrote into a run: its benchmarks with
// their runs and the file's own metadata (in the returned metadata, which
// Import keeps in the run's Source). The run has no Source, start or
// folder yet. A pyperf file may be gzipped (.json.gz).
func Parse(tool string, data []byte) (*results.Run, map[string]results.RawJSON, error) {
	var (
		run  *results.Run
		meta map[string]results.RawJSON
		err  error
	)
	switch tool {
	case results.KindHyperfine:
		run, meta, err = parseHyperfine(data)
	case results.KindPyperf:
		run, meta, err = parsePyperf(data)
	case results.KindGeekbench:
		run, meta, err = parseGeekbench(data)
	default:
		return nil, nil, fmt.Errorf("no importer for %q (there are: %v)", tool, Tools)
	}
	if err != nil {
		return nil, nil, err
	}
	total := 0
	for i := range run.Benchmarks {
		run.Benchmarks[i].Summarize()
		words.Benchmark(&run.Benchmarks[i])
		total += len(run.Benchmarks[i].Runs)
	}
	if total > MaxRuns {
		return nil, nil, &FormatError{Tool: tool, Msg: fmt.Sprintf("%d runs: corepin imports at most %d from one file, which keeps run.json readable", total, MaxRuns)}
	}
	run.ComputeScore()
	return run, meta, nil
}

// words are the texts of the judge's findings on an imported run:
// corepin import has none of the flags they may advise.
var words = judge.Words{}

// MaxRuns bounds the runs of one import (pyperformance's whole suite is
// some 5,000 values): each adds a small record to run.json, which stays
// far within what report, compare and merge read.
const MaxRuns = 50000

// Import reads the files at paths, written by tool, into a new results
// folder under outDir: run.json, summary.csv and bench.txt, and each file
// byte for byte in source/ with its SHA-256. Several Geekbench exports are
// several runs of each score; the other tools' files hold their own runs,
// so they are imported one at a time. An unreadable file is an error of
// reading and one that is not the tool's are an *InputError.
func Import(tool string, paths []string, outDir string, now time.Time) (*results.Run, *results.Folder, error) {
	if len(paths) == 0 {
		return nil, nil, &InputError{errors.New("no file to import")}
	}
	if len(paths) > 1 && tool != results.KindGeekbench {
		return nil, nil, &InputError{fmt.Errorf("%s's file holds all its runs: import one file at a time", tool)}
	}
	var (
		run     *results.Run
		sources []results.Source
		kept    [][]byte
	)
	for i, path := range paths {
		data, src, err := results.ReadSource(tool, path)
		if err != nil {
			return nil, nil, &InputError{fmt.Errorf("reading %s's file: %w", tool, err)}
		}
		if slices.ContainsFunc(sources, func(s results.Source) bool { return s.Name == src.Name }) {
			return nil, nil, &InputError{fmt.Errorf("%s: two files of one name cannot be kept side by side in source/", src.Name)}
		}
		one, meta, err := Parse(tool, data)
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Name = path
		}
		if err != nil {
			return nil, nil, &InputError{err}
		}
		src.Version, src.Metadata = version(tool, meta), meta
		if i == 0 {
			run = one
		} else {
			addRuns(run, one, i)
		}
		sources, kept = append(sources, src), append(kept, data)
		if st, err := os.Stat(path); err == nil && (run.Started.IsZero() || st.ModTime().Before(run.Started)) {
			run.Started = st.ModTime()
		}
	}
	run.Source = &sources[0]
	if tool == results.KindGeekbench {
		// Each run of a score is one export: its own file.
		for i := range run.Benchmarks {
			for j := range run.Benchmarks[i].Runs {
				r := &run.Benchmarks[i].Runs[j]
				r.Source = &sources[r.Index]
			}
		}
	}
	settle(run)
	folder, err := results.Create(outDir, tool, now)
	if err != nil {
		return nil, nil, err
	}
	for i, src := range sources {
		if err := folder.KeepSource(src, kept[i]); err != nil {
			return nil, nil, err
		}
	}
	folder.DropEmptyTelemetry()
	if err := folder.Save(run); err != nil {
		return nil, nil, err
	}
	return run, folder, nil
}

// settle finishes an imported run: statistics, score and the one warning
// every import carries.
func settle(run *results.Run) {
	for i := range run.Benchmarks {
		run.Benchmarks[i].Summarize()
		words.Benchmark(&run.Benchmarks[i])
	}
	run.ComputeScore()
	run.Warnings = append(run.Warnings, results.Warning{Run: results.NoRun, Kind: results.KindImported,
		Text: fmt.Sprintf("%s: corepin did not watch this run, so it has no read-back, residency or telemetry; where it ran: not recorded; started is the file's modification time", run.Source.Describe())})
}

// addRuns adds the runs of another export (the k-th file) to run's
// benchmarks, by name.
func addRuns(run, more *results.Run, k int) {
	for _, mb := range more.Benchmarks {
		i := slices.IndexFunc(run.Benchmarks, func(b results.Benchmark) bool { return b.Name == mb.Name })
		if i < 0 {
			run.Benchmarks = append(run.Benchmarks, results.Benchmark{Name: mb.Name, Kind: mb.Kind, Measure: mb.Measure,
				Warnings: []results.Warning{}, Runs: []results.RunRecord{}})
			i = len(run.Benchmarks) - 1
		}
		b := &run.Benchmarks[i]
		for _, r := range mb.Runs {
			r.Index = k
			b.Runs = append(b.Runs, r)
			b.PlannedRuns++
		}
	}
}

// newRun is an imported run before its benchmarks: finished, with no
// target (where it ran is not recorded) and no settings of corepin's.
func newRun() *results.Run {
	return &results.Run{
		Schema: results.Schema, State: results.StateFinished,
		Target:     results.Target{ExactCPU: -1},
		Benchmarks: []results.Benchmark{}, Warnings: []results.Warning{},
	}
}

// newBenchmark is an imported benchmark of the tool's kind.
func newBenchmark(tool, name string, command []string) results.Benchmark {
	return results.Benchmark{Name: name, Kind: tool, Command: command, Warnings: []results.Warning{}, Runs: []results.RunRecord{}}
}

// record is one imported run of a benchmark: nothing of it was measured
// by corepin but its figure, so every other figure is null.
func record(index int) results.RunRecord {
	return results.RunRecord{Index: index, WallS: math.NaN(), UserS: math.NaN(), SysS: math.NaN(), MaxRSSKB: -1,
		Valid: true, Checks: []evidence.Outcome{}}
}

// figure is a number from the file that can be a result: finite and not
// negative.
func figure(v float64) bool { return v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// decodeStrict decodes one JSON value, refusing what follows it.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more than one JSON value")
	}
	return nil
}

// Bounds of the metadata kept in run.json: the file is kept whole beside
// it, so a long value is left there.
const (
	maxMetaKeys  = 100
	maxMetaValue = 4 << 10
)

// keepMetadata keeps the fields of obj not in skip, each as the file holds
// it, within the bounds: a longer value is replaced by a note of its size.
func keepMetadata(obj map[string]results.RawJSON, skip ...string) map[string]results.RawJSON {
	var keys []string
	for k := range obj {
		if !slices.Contains(skip, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := map[string]results.RawJSON{}
	for i, k := range keys {
		if i == maxMetaKeys {
			note, _ := json.Marshal(fmt.Sprintf("%d more fields: see the kept file", len(keys)-maxMetaKeys))
			out["…"] = note
			break
		}
		v := obj[k]
		if len(v) > maxMetaValue {
			v, _ = json.Marshal(fmt.Sprintf("(%d bytes: see the kept file)", len(v)))
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// version is the tool's version as its metadata says it.
func version(tool string, meta map[string]results.RawJSON) string {
	key := map[string]string{results.KindHyperfine: "hyperfine_version", results.KindPyperf: "perf_version", results.KindGeekbench: "version"}[tool]
	var v string
	if raw, ok := meta[key]; ok && json.Unmarshal(raw, &v) == nil && len(v) <= 64 {
		return v
	}
	return ""
}
