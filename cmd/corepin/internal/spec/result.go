// Package spec is corepin's side of SPEC CPU (2017 and 2026): the files
// runcpu and specinvoke write (the raw result file, the CSV results
// table, speccmds.cmd and speccmds.out, compare.cmd, reftime), the runcpu
// config fragment that puts every benchmark command on the chosen core
// through runcpu's own submit hook, the join of a SPEC result with
// corepin's exec reports of the same invocations, and a corepin suite
// made from SPEC's set-up run folders for devices where runcpu cannot
// run. The grammar of each file is from SPEC's public documentation and
// tools; nothing of SPEC's suite is in it, and corepin reads the user's
// own tree.
package spec

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseResult reads a raw result file or, where it begins as runcpu's CSV
// report does, the CSV.
func ParseResult(data []byte) (*Result, error) {
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("valid,")) {
		return ParseCSV(data)
	}
	return ParseRSF(data)
}

// Result is what a SPEC CPU result file says: the run's facts and one
// record per benchmark, tuning and iteration.
type Result struct {
	// Suite is the raw file's prefix after "spec.": "cpu2017",
	// "cpu2026".
	Suite string
	// Lognum is the run's number ("015", "015.0" once reformatted), the
	// ${lognum} of the config's submit lines.
	Lognum string
	// Runmode is "rate" or "speed"; Size the workload ("refrate (ref)").
	Runmode, Size string
	// Metric ("CINT2017"), Name ("intrate"), the tools' and the suite's
	// versions, and the machine as the config described it.
	Metric, Name        string
	Runcpuver, Suitever string
	CPUName, OS, Date   string
	// Invalid: runcpu marked the whole result invalid (its Errors say
	// why; a run that was not reportable always is).
	Invalid bool
	Errors  []string
	// BaseMean and PeakMean are the estimated SPECrate or SPECspeed
	// means; nil where the file says "--" or "Not Run".
	BaseMean, PeakMean *float64
	Iterations         []Iteration
}

// Iteration is one iteration of one benchmark at one tuning: a "results"
// record of the raw file, or a row of the CSV's full results table.
type Iteration struct {
	Benchmark string // "505.mcf_r"
	Tune      string // "base" or "peak"
	// Index is its place among the benchmark's iterations at this
	// tuning, in runcpu's order; Number is runcpu's iteration number, the
	// ${iter} of the submit lines, from 0; -1 for a benchmark that never
	// ran (a build error).
	Index, Number int
	Copies        int
	Threads       int
	// ReportedS is SPEC's time of the iteration: a speed run's elapsed
	// time, a rate run's from the first copy's start to the last copy's
	// end. ReferenceS is the reference machine's time and Ratio SPEC's
	// ratio (copies × reference / time for rate, reference / time for
	// speed). Each is nil where the file has none ("--").
	ReportedS, ReferenceS, Ratio *float64
	// ReferenceDerived: the file gives no reference (the CSV), and
	// ReferenceS is ratio × time / copies.
	ReferenceDerived bool
	// Valid is SPEC's verdict: "S" success, "RE" run error, "VE" a
	// miscompare, "TE" the tools', "CE" a build error, and so on.
	Valid    string
	Selected bool
	// RC is specinvoke's status of a failed command; Submit says whether
	// the config's submit line started the commands.
	RC     *int
	Submit *bool
	// RateStart and RateEnd are a rate iteration's first start and last
	// end, in seconds since the epoch; nil for speed.
	RateStart, RateEnd *float64
	Errors             []string
}

// Name is the benchmark and tuning as one corepin benchmark name:
// "505.mcf_r.base".
func (it Iteration) Name() string { return it.Benchmark + "." + it.Tune }

// notMeasured are the words SPEC's files write in place of a number that
// was not measured.
var notMeasured = map[string]bool{"": true, "--": true, "Not Run": true, "NR": true}

// number reads one of SPEC's numbers: nil for "--" and its relatives, an
// error for anything else that is not a finite number.
func number(s string) (*float64, error) {
	s = strings.TrimSpace(s)
	if notMeasured[s] {
		return nil, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("%q is not a number", s)
	}
	return &v, nil
}

// integer reads a count SPEC writes; "--" and its relatives are nil.
func integer(s string) (*int, error) {
	s = strings.TrimSpace(s)
	if notMeasured[s] {
		return nil, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a whole number", s)
	}
	return &v, nil
}

// Limits of what corepin reads from SPEC's files: far beyond any real
// result (43 benchmarks, two tunings, a few iterations), small enough
// that no file makes corepin hold more than a few megabytes.
const (
	MaxIterations = 10000
	MaxErrors     = 1000
	maxText       = 4096
)
