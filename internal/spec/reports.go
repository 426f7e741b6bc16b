package spec

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"corepin.dev/corepin/internal/inputfile"
	"corepin.dev/corepin/results/evidence"
)

// Key is what joins a command of a SPEC run with corepin's report of it:
// the benchmark, tuning, iteration, workload and copy, which the submit
// line writes into the report's name (ReportName).
type Key struct {
	Benchmark, Tune           string
	Iteration, Workload, Copy int
}

// ParseReportName reads a report's key from its name,
// "505.mcf_r.base.i0.w1.c3.json"; false for any other name.
func ParseReportName(name string) (Key, bool) {
	rest, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return Key{}, false
	}
	parts := strings.Split(rest, ".")
	if len(parts) < 5 {
		return Key{}, false
	}
	n := len(parts)
	num := func(s, prefix string) (int, bool) {
		digits, ok := strings.CutPrefix(s, prefix)
		if !ok || digits == "" || len(digits) > 6 {
			return 0, false
		}
		v, err := strconv.Atoi(digits)
		return v, err == nil && v >= 0
	}
	var k Key
	var ok1, ok2, ok3 bool
	k.Iteration, ok1 = num(parts[n-3], "i")
	k.Workload, ok2 = num(parts[n-2], "w")
	k.Copy, ok3 = num(parts[n-1], "c")
	k.Tune, k.Benchmark = parts[n-4], strings.Join(parts[:n-4], ".")
	if !ok1 || !ok2 || !ok3 || checkName(k.Tune) != nil || checkName(k.Benchmark) != nil {
		return Key{}, false
	}
	return k, true
}

// Report is corepin exec's report of one command of a SPEC run.
type Report struct {
	Key  Key
	Name string // the file's name
	// Data is the file as read, kept byte for byte in the results folder.
	Data       []byte
	Scheduling *evidence.Scheduling
}

// Bounds of the reports read: a report is kilobytes (its thread list is
// the watcher's), a run has one per workload, copy and iteration.
const (
	maxReportFile = 16 << 20
	maxReports    = 100000
)

// ReadReports reads the exec reports in dir, those named as the submit
// line names them, in order. A file of that name that is not a report is
// an error naming it.
func ReadReports(dir string) ([]Report, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading corepin's reports: %w", err)
	}
	var out []Report
	for _, e := range entries {
		key, ok := ParseReportName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if len(out) == maxReports {
			return nil, fmt.Errorf("reading corepin's reports: more than %d in %s", maxReports, dir)
		}
		data, err := readRegular(filepath.Join(dir, e.Name()), maxReportFile)
		if err != nil {
			return nil, fmt.Errorf("reading corepin's report: %w", err)
		}
		var s evidence.Scheduling
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("reading corepin's report %s: %w", filepath.Join(dir, e.Name()), err)
		}
		out = append(out, Report{Key: key, Name: e.Name(), Data: data, Scheduling: &s})
	}
	slices.SortFunc(out, func(a, b Report) int { return compareKeys(a.Key, b.Key) })
	return out, nil
}

func compareKeys(a, b Key) int {
	if c := strings.Compare(a.Benchmark, b.Benchmark); c != 0 {
		return c
	}
	if c := strings.Compare(a.Tune, b.Tune); c != 0 {
		return c
	}
	for _, d := range [][2]int{{a.Iteration, b.Iteration}, {a.Workload, b.Workload}, {a.Copy, b.Copy}} {
		if d[0] != d[1] {
			return d[0] - d[1]
		}
	}
	return 0
}

// readRegular reads a regular file of at most limit bytes: a FIFO would
// block (inputfile opens it without waiting, and refuses it), a device
// never end.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, limit>>20)
	}
	return data, nil
}

// ReportsFolder finds the folder of a result's reports: dir itself when
// it holds reports, else its corepin.<lognum> (the lognum as the result
// writes it, then without a reformatted run's ".N"). "" and no error
// when dir is "" and nothing lies beside the result.
func ReportsFolder(dir, lognum string) (string, error) {
	candidates := []string{ReportDir + lognum}
	if base, _, ok := strings.Cut(lognum, "."); ok {
		candidates = append(candidates, ReportDir+base)
	}
	for _, c := range candidates {
		p := filepath.Join(dir, c)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, nil
		}
	}
	st, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	return dir, nil
}
