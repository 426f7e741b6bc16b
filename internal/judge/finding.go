package judge

import "corepin.dev/corepin/results"

// Severity says what a finding does to the run it is about.
type Severity string

const (
	// Invalid: the run is not a result (its error or a failed check
	// says why).
	Invalid Severity = "invalid"
	// Rerun: the run is left out of the statistics and run again.
	Rerun Severity = "re-run"
	// Warn: a reader of the results must know it.
	Warn Severity = "warn"
	// Note: what could not be judged, and why; it claims nothing.
	Note Severity = "note"
)

// A Finding is one thing a run's evidence says.
type Finding struct {
	// Kind is what it is about, as run.json names it (results.Kind*).
	Kind string
	// Run is the run's index; results.NoRun for a benchmark or a run of
	// benchmarks as a whole.
	Run      int
	Severity Severity
	// Value is the figure it is about (a share, a count), of which the
	// terminal gives the range; nil for none.
	Value *float64
	// Params are what its text says (see Words).
	Params Params
}

// Params are a finding's parameters: each kind's own, which Words puts
// into that kind's text with the command's flag names.
type Params interface {
	text(Flags) string
}

// find is a finding about the whole benchmark or run.
func find(kind string, sev Severity, value *float64, p Params) Finding {
	return Finding{Kind: kind, Run: results.NoRun, Severity: sev, Value: value, Params: p}
}

// ptr is v's address: the value of a finding.
func ptr(v float64) *float64 { return &v }
