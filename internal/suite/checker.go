package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"time"

	"corepin.dev/corepin/results/evidence"
)

// Checker applies one benchmark's checks and reads its metric, run after
// run. A signature (the text a check captures, or an output's digest) is
// the same in every run of one program's version: each run's is held to
// the value the suite knows for that version, else to the one the first
// run recorded (Records), so that all are equal.
type Checker struct {
	suite *Suite
	bench Benchmark
	// version is the program's version line; versionErr says why there
	// is none where the benchmark asks for one.
	version    string
	versionErr error
	records    *Records
	recordsErr error
	opened     bool
}

// NewChecker is the checker of the suite's benchmark b, whose version
// command printed version (or failed with versionErr).
func (s *Suite) NewChecker(b Benchmark, version string, versionErr error) *Checker {
	return &Checker{suite: s, bench: b, version: version, versionErr: versionErr}
}

// Check applies every check of the benchmark to one run's output.
func (k *Checker) Check(out Output) []evidence.Outcome {
	var outcomes []evidence.Outcome
	for _, c := range k.bench.Checks {
		if c.records() {
			outcomes = append(outcomes, bounded(k.signature(c, out)))
			continue
		}
		outcomes = append(outcomes, c.RunFile(k.suite, out))
	}
	return outcomes
}

// Value is the run's value of the benchmark's metric.
func (k *Checker) Value(out Output) (float64, error) { return k.bench.Metric.Value(out) }

// signature checks a value that must stay what it was for the program's
// version: the known value for the version where the suite has one, else
// the recorded one, which the first run of a new version records.
func (k *Checker) signature(c Check, out Output) evidence.Outcome {
	streams := out.streams(c.Stdout, c.Stderr, c.File)
	o := evidence.Outcome{What: fmt.Sprintf("%s's SHA-256 for the program's version", c.subject())}
	var value string
	if c.Signature != "" {
		o.What = fmt.Sprintf("%s's signature /%s/ for the program's version", c.subject(), clip(c.Signature))
		text, found, err := lastCapture(streams, c.Signature)
		switch {
		case err != nil:
			o.Detail = err.Error()
			return o
		case !found:
			o.Detail = fmt.Sprintf("no line of %s matches", c.subject())
			return o
		}
		value = text
	} else {
		sum, err := digest(streams)
		if err != nil {
			o.Detail = err.Error()
			return o
		}
		value = hex.EncodeToString(sum)
	}
	if k.versionErr != nil || k.version == "" {
		o.Detail = fmt.Sprintf("is %s, and the version it belongs to is not known: %v", value, k.versionErr)
		return o
	}
	if known, ok := c.Known[k.version]; ok {
		o.Passed = known == value
		o.Detail = fmt.Sprintf("%s, the signature known for %q", value, k.version)
		if !o.Passed {
			o.Detail = fmt.Sprintf("is %s; the signature known for %q is %s", value, k.version, known)
		}
		return o
	}
	records, err := k.openRecords()
	if err != nil {
		o.Detail = fmt.Sprintf("is %s, and there is no record to hold it against: %v", value, err)
		return o
	}
	held, fresh, err := records.Hold(Record{Key: k.key(c), Benchmark: k.bench.Name, Check: o.What, Version: k.version,
		Value: value, Suite: k.suite.Path, Recorded: time.Now().UTC()})
	switch {
	case err != nil:
		o.Detail = fmt.Sprintf("is %s, and it could not be held against a record: %v", value, err)
	case fresh:
		o.Passed, o.Detail = true, fmt.Sprintf("%s, recorded now for %q in %s", value, k.version, records.Path())
	case held.Value != value:
		o.Detail = fmt.Sprintf("is %s; recorded for %q on %s in %s: %s", value, k.version, held.Recorded.Format("2006-01-02"), records.Path(), held.Value)
	default:
		o.Passed, o.Detail = true, fmt.Sprintf("%s, as recorded for %q on %s", value, k.version, held.Recorded.Format("2006-01-02"))
	}
	return o
}

// openRecords opens the user's records on first need.
func (k *Checker) openRecords() (*Records, error) {
	if !k.opened {
		k.records, k.recordsErr = OpenRecords()
		k.opened = true
	}
	return k.records, k.recordsErr
}

// key is what a recorded value is recorded under: everything that decides
// it, so that a benchmark run otherwise records anew instead of failing.
func (k *Checker) key(c Check) string {
	c.Known = nil // the suite's knowledge is not part of the work
	data, _ := json.Marshal(struct {
		Cmd     string
		Args    []string
		Env     map[string]string
		Stdin   string
		Inputs  []Input
		Check   Check
		Version string
		Arch    string
	}{k.bench.Cmd, k.bench.Args, k.bench.Env, k.bench.Stdin, k.bench.Inputs, c, k.version, runtime.GOARCH})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
