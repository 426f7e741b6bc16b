package spec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The raw result file (.rsf) is runcpu's record of a run, which its other
// reports are formatted from. Every line that is not a comment is
//
//	spec.<suite>.<key>: <value>
//
// with <suite> "cpu2017" or "cpu2026"; an array's elements are <key>NNN
// (errors000, sw_os001); and one record per benchmark, tuning and
// iteration is
//
//	spec.<suite>.results.<benchmark, "." as "_">.<tune>.<NNN>.<key>: <value>
//
// where NNN is the record's place once sorted by iteration (raw.pl; the
// keys are those of the harness's make_empty_result and run_benchmark).
// The part after "# ===... do not edit below this point" is hashed: the
// file is read as it is and kept byte for byte.

// ParseRSF reads a raw result file.
func ParseRSF(data []byte) (*Result, error) {
	r := &Result{}
	recs := map[recordKey]*rsfRecord{}
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		parts := strings.SplitN(key, ".", 3)
		if !ok || len(parts) < 3 || parts[0] != "spec" || parts[1] == "" {
			return nil, fmt.Errorf("line %d: not a raw result line (spec.SUITE.KEY: VALUE): %q", n, clipText(line))
		}
		switch {
		case r.Suite == "":
			r.Suite = parts[1]
		case parts[1] != r.Suite:
			return nil, fmt.Errorf("line %d: suite %q after %q", n, parts[1], r.Suite)
		}
		value = strings.TrimSpace(value)
		if rest, isRun := strings.CutPrefix(parts[2], "results."); isRun {
			if err := addRecordLine(recs, rest, value); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if len(recs) > MaxIterations {
				return nil, fmt.Errorf("line %d: more than %d iterations", n, MaxIterations)
			}
			continue
		}
		if err := r.setRunKey(parts[2], value); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if r.Suite == "" {
		return nil, errors.New("no spec.SUITE.KEY line: not a SPEC raw result file (.rsf)")
	}
	for k, rec := range recs {
		it, err := rec.iteration(k)
		if err != nil {
			return nil, err
		}
		r.Iterations = append(r.Iterations, it)
	}
	sortIterations(r.Iterations)
	return r, nil
}

// runTexts are the run's own keys kept as text, by the field each goes
// to.
var runTexts = map[string]func(r *Result) *string{
	"lognum":      func(r *Result) *string { return &r.Lognum },
	"runmode":     func(r *Result) *string { return &r.Runmode },
	"size":        func(r *Result) *string { return &r.Size },
	"metric":      func(r *Result) *string { return &r.Metric },
	"name":        func(r *Result) *string { return &r.Name },
	"runcpuver":   func(r *Result) *string { return &r.Runcpuver },
	"suitever":    func(r *Result) *string { return &r.Suitever },
	"hw_cpu_name": func(r *Result) *string { return &r.CPUName },
	"test_date":   func(r *Result) *string { return &r.Date },
}

// setRunKey keeps what the importer needs of the run's own keys.
func (r *Result) setRunKey(key, value string) error {
	if base, ok := arrayKey(key); ok {
		switch base {
		case "errors":
			if len(r.Errors) < MaxErrors {
				r.Errors = append(r.Errors, clipText(value))
			}
		case "sw_os":
			r.OS = clipText(strings.TrimSpace(r.OS + " " + value))
		}
		return nil
	}
	if field, ok := runTexts[key]; ok {
		*field(r) = clipText(value)
		return nil
	}
	var err error
	switch key {
	case "invalid":
		r.Invalid = value != "" && value != "0"
	case "basemean":
		r.BaseMean, err = number(value)
	case "peakmean":
		r.PeakMean, err = number(value)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// recordKey names one results record: the benchmark as the key writes it
// ("505_mcf_r"), the tuning and NNN.
type recordKey struct {
	bench, tune string
	index       int
}

// rsfRecord is one results record's keys as read.
type rsfRecord struct {
	keys   map[string]string
	errors []string
}

// addRecordLine adds "<bench>.<tune>.<NNN>.<key>" = value to its record.
func addRecordLine(recs map[recordKey]*rsfRecord, rest, value string) error {
	parts := strings.SplitN(rest, ".", 4)
	if len(parts) != 4 || parts[0] == "" || parts[1] == "" || parts[3] == "" {
		return fmt.Errorf("results key %q: want results.BENCHMARK.TUNE.NNN.KEY", clipText(rest))
	}
	index, err := strconv.Atoi(parts[2])
	if err != nil || index < 0 || index >= MaxIterations {
		return fmt.Errorf("results key %q: %q is not an iteration's place (NNN)", clipText(rest), parts[2])
	}
	k := recordKey{parts[0], parts[1], index}
	rec := recs[k]
	if rec == nil {
		rec = &rsfRecord{keys: map[string]string{}}
		recs[k] = rec
	}
	if base, ok := arrayKey(parts[3]); ok {
		if base == "errors" && len(rec.errors) < MaxErrors {
			rec.errors = append(rec.errors, clipText(value))
		}
		return nil
	}
	if len(rec.keys) < 256 {
		rec.keys[parts[3]] = value
	}
	return nil
}

// iteration turns a record into an Iteration, checking its numbers.
func (rec *rsfRecord) iteration(k recordKey) (Iteration, error) {
	it := Iteration{Benchmark: rec.keys["benchmark"], Tune: k.tune, Index: k.index, Number: k.index, Copies: 1, Threads: 1,
		Valid: clipText(rec.keys["valid"]), Selected: rec.keys["selected"] == "1", Errors: rec.errors}
	if it.Benchmark == "" {
		// "505_mcf_r": the number's "." became "_".
		it.Benchmark = strings.Replace(k.bench, "_", ".", 1)
	}
	if s, ok := rec.keys["submit"]; ok {
		used := s == "1"
		it.Submit = &used
	}
	key, err := rec.numbers(&it)
	if err == nil {
		key, err = "benchmark", checkName(it.Benchmark)
	}
	if err == nil {
		key, err = "tune", checkName(it.Tune)
	}
	if err != nil {
		return Iteration{}, fmt.Errorf("%s %s iteration %d: %s: %w", clipText(it.Benchmark), clipText(k.tune), k.index, key, err)
	}
	return it, nil
}

// numbers reads the record's counts and figures into it; on an error, it
// names the key that is wrong.
func (rec *rsfRecord) numbers(it *Iteration) (key string, err error) {
	ints := []struct {
		key string
		to  *int
	}{{"iteration", &it.Number}, {"copies", &it.Copies}, {"threads", &it.Threads}}
	for _, f := range ints {
		v, err := integer(rec.keys[f.key])
		if err != nil {
			return f.key, err
		}
		if v != nil {
			*f.to = *v
		}
	}
	if it.Copies < 0 || it.Threads < 0 {
		return "copies", fmt.Errorf("%d copies of %d threads", it.Copies, it.Threads)
	}
	floats := []struct {
		key string
		to  **float64
	}{{"reported_time", &it.ReportedS}, {"reference", &it.ReferenceS}, {"ratio", &it.Ratio}, {"rate_start", &it.RateStart}, {"rate_end", &it.RateEnd}}
	for _, f := range floats {
		if *f.to, err = number(rec.keys[f.key]); err != nil {
			return f.key, err
		}
	}
	it.RC, err = integer(rec.keys["rc"])
	return "rc", err
}

// arrayKey says whether key is an array's element ("errors012") and
// returns the array's name.
func arrayKey(key string) (string, bool) {
	if len(key) < 4 {
		return "", false
	}
	base, digits := key[:len(key)-3], key[len(key)-3:]
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return base, base == "errors" || base == "sw_os" || base == "copytime" || base == "notes"
}

// checkName refuses a benchmark or tuning name corepin could not use as
// part of a benchmark's name.
func checkName(s string) error {
	if s == "" || len(s) > 100 || strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) {
		return fmt.Errorf("%q is not a benchmark or tuning name (letters, digits, '.', '_' and '-')", clipText(s))
	}
	return nil
}

// sortIterations puts the iterations in the order runcpu reports them:
// by benchmark, tuning (base first) and place.
func sortIterations(its []Iteration) {
	tuneRank := func(t string) string {
		if t == "base" {
			return ""
		}
		return t
	}
	slices.SortFunc(its, func(a, b Iteration) int {
		if c := strings.Compare(a.Benchmark, b.Benchmark); c != 0 {
			return c
		}
		if c := strings.Compare(tuneRank(a.Tune), tuneRank(b.Tune)); c != 0 {
			return c
		}
		return a.Index - b.Index
	})
}

// clipText bounds a text read from a file.
func clipText(s string) string {
	if len(s) <= maxText {
		return s
	}
	return strings.ToValidUTF8(s[:maxText], "") + "…"
}
