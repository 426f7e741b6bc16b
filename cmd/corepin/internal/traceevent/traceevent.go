// Package traceevent is a results folder as a Chrome trace-event JSON
// file, which ui.perfetto.dev and chrome://tracing open: a view of the
// one result model (run.json) and the folder's telemetry and timeline
// CSVs, as the page is.
//
// The trace has two processes. "runs" has a thread per benchmark, whose
// slices are the runs, each over the window in which the target was
// measured, with its verdict; the speed probes are instants on it. "CPUs"
// has a thread per CPU: on a target CPU, who ran there slice by slice,
// where the scheduler's switch events were recorded (the work's threads
// and everyone else's); on every CPU, its utilisation and frequency as
// counters. Where the switches were not recorded, the others' time on
// the target is a counter over the run and an instant says why, never a
// slice that did not happen.
//
// Every time is on one clock: microseconds since run.json's started, on
// the wall clock, as every time of run.json (the run windows, the probes)
// and the telemetry's start are; the slices' own times count from their
// run's window.
package traceevent

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/results"
)

// Name is the file corepin run writes beside run.json.
const Name = "trace.json"

// The trace's bounds: a run adds at most MaxSlicesPerRun slices of who ran
// on the target and MaxCountersPerRun telemetry instants, and the whole
// trace at most MaxEvents events; what is left out is said in the trace's
// metadata (otherData.left_out).
const (
	MaxSlicesPerRun   = 16384
	MaxCountersPerRun = 2048
	MaxEvents         = 2_000_000
)

// The trace's two processes. Their numbers are the trace's own, not a
// process of the machine.
const (
	RunsPID = 1 // a thread per benchmark, its runs as slices
	CPUsPID = 2 // a thread per CPU: who ran there, its counters
)

// Event is one trace event, with the keys the format names.
type Event struct {
	Name string   `json:"name"`
	Cat  string   `json:"cat,omitempty"`
	Ph   string   `json:"ph"`
	TS   float64  `json:"ts"`            // µs
	Dur  *float64 `json:"dur,omitempty"` // µs, for X (and only X), 0 too
	PID  int      `json:"pid"`
	TID  int      `json:"tid"`
	// S is an instant's scope: "t" (its thread), "p" or "g".
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// Trace is the JSON object format: the events and what the trace is of.
type Trace struct {
	TraceEvents     []Event        `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// Write writes the trace of the run whose folder is dir.
func Write(w io.Writer, run *results.Run, dir string) error {
	data, err := json.Marshal(Build(run, dir))
	if err != nil {
		return fmt.Errorf("writing the trace: %w", err)
	}
	// Names from outside (a suite's benchmarks, the threads') keep their
	// bytes, with what a terminal would act on escaped, as in run.json.
	_, err = w.Write(termsafe.JSON(append(data, '\n')))
	return err
}

// WriteFile writes trace.json into the results folder dir and returns its
// path.
func WriteFile(dir string, run *results.Run) (string, error) {
	path := filepath.Join(dir, Name)
	return path, atomicfile.Write(path, func(w io.Writer) error { return Write(w, run, dir) })
}

// dur is a complete slice's duration: written even when it is 0.
func dur(us float64) *float64 { return &us }

// sortEvents puts the metadata first and the rest in time order, each
// track's together: the format allows any order, a reader likes this one.
func sortEvents(ev []Event) {
	rank := func(e Event) int {
		if e.Ph == "M" {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(ev, func(a, b Event) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.TS, b.TS), cmp.Compare(a.PID, b.PID), cmp.Compare(a.TID, b.TID))
	})
}
