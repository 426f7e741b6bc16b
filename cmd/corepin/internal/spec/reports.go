package spec

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
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

// iteration names the iteration the command is of.
func (k Key) iteration() iterationKey {
	return iterationKey{k.Benchmark + "." + k.Tune, k.Iteration}
}

// iterationKey names an iteration: its benchmark and tuning, and number.
type iterationKey struct {
	name   string
	number int
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
	var k Key
	var ok1, ok2, ok3 bool
	k.Iteration, ok1 = nameNumber(parts[n-3], "i")
	k.Workload, ok2 = nameNumber(parts[n-2], "w")
	k.Copy, ok3 = nameNumber(parts[n-1], "c")
	k.Tune, k.Benchmark = parts[n-4], strings.Join(parts[:n-4], ".")
	if !ok1 || !ok2 || !ok3 || checkName(k.Tune) != nil || checkName(k.Benchmark) != nil {
		return Key{}, false
	}
	return k, true
}

// nameNumber reads a number of a report's name after its letter: "i12".
func nameNumber(s, prefix string) (int, bool) {
	digits, ok := strings.CutPrefix(s, prefix)
	if !ok || digits == "" || len(digits) > 6 {
		return 0, false
	}
	v, err := strconv.Atoi(digits)
	return v, err == nil && v >= 0
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

// Reports are the reports in a folder of corepin's reports of one runcpu
// run, indexed by the command each names. Each is read when its
// iteration is joined (Read), so that a run of many copies and
// iterations never has them all in memory at once.
type Reports struct {
	Dir string
	// Lognum is the run the folder's name says it holds the reports of
	// (corepin.042: "042"); "" where the name says none.
	Lognum string
	names  map[Key]string
	// byIteration are the commands of each iteration, in order.
	byIteration map[iterationKey][]Key
	// Duplicates are reports whose command another report has already
	// (i1 and i01): the first by name is joined.
	Duplicates []string
}

// IndexReports lists the reports in dir, those named as the submit line
// names them, without reading them.
func IndexReports(ctx context.Context, dir string) (*Reports, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading corepin's reports: %w", err)
	}
	r := &Reports{Dir: dir, names: map[Key]string{}, byIteration: map[iterationKey][]Key{}}
	if lognum, ok := strings.CutPrefix(filepath.Base(dir), ReportDir); ok {
		r.Lognum = lognum
	}
	for _, e := range entries { // in order of their names
		key, ok := ParseReportName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, dup := r.names[key]; dup {
			r.Duplicates = append(r.Duplicates, e.Name())
			continue
		}
		if len(r.names) == maxReports {
			return nil, fmt.Errorf("reading corepin's reports: more than %d in %s", maxReports, dir)
		}
		r.names[key] = e.Name()
		r.byIteration[key.iteration()] = append(r.byIteration[key.iteration()], key)
	}
	for _, keys := range r.byIteration {
		slices.SortFunc(keys, compareKeys)
	}
	return r, nil
}

// Len is how many reports the folder holds.
func (r *Reports) Len() int { return len(r.names) + len(r.Duplicates) }

// commands are the keys of an iteration's commands, in order.
func (r *Reports) commands(it Iteration) []Key {
	return r.byIteration[iterationKey{it.Name(), it.Number}]
}

// Name is the file name of a command's report.
func (r *Reports) Name(k Key) string { return r.names[k] }

// Read reads the report of a command.
func (r *Reports) Read(k Key) (*Report, error) {
	name := r.names[k]
	path := filepath.Join(r.Dir, name)
	data, err := readRegular(path, maxReportFile)
	if err != nil {
		return nil, fmt.Errorf("reading corepin's report: %w", err)
	}
	var s evidence.Scheduling
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("reading corepin's report %s: %w", path, err)
	}
	return &Report{Key: k, Name: name, Data: data, Scheduling: &s}, nil
}

// sortedNames are every report's name, in order.
func (r *Reports) sortedNames() []string {
	names := slices.Collect(maps.Values(r.names))
	names = append(names, r.Duplicates...)
	slices.Sort(names)
	return names
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

// sameRun says whether two lognums name one run: as written, or once a
// reformatted result's ".N" is left off ("015.0" is run 015's) and
// leading zeros are ("42" is "042").
func sameRun(a, b string) bool {
	norm := func(s string) string {
		s, _, _ = strings.Cut(strings.TrimSpace(s), ".")
		if t := strings.TrimLeft(s, "0"); t != "" || s == "" {
			return t
		}
		return "0"
	}
	return norm(a) == norm(b)
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

// ReportsFolder finds the folder of a result's reports: dir's
// corepin.<lognum> (the lognum as the result writes it, then without a
// reformatted run's ".N") where it has one, else dir itself.
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
