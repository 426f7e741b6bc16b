package traceevent

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"corepin.dev/corepin/results"
)

// Check reads a trace and holds it to the trace-event format's rules as
// Perfetto's JSON importer applies them: every event has ph, ts (µs), pid,
// tid and name; a complete slice (X) has a dur of 0 or more; a counter (C)
// has args, every one a number; metadata (M) names a process or a thread
// in args.name (or sets its sort_index); an instant (i) has a scope of t,
// p or g; every process and every thread with slices or instants is named
// by metadata; and slices on one track (pid, tid) never overlap, but for
// one lying wholly inside another. The phases corepin does not write are
// refused.
func Check(data []byte) (*Trace, error) {
	var raw struct {
		TraceEvents []map[string]json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("the trace is not a JSON object: %w", err)
	}
	if raw.TraceEvents == nil {
		return nil, errors.New("the trace has no traceEvents")
	}
	for i, e := range raw.TraceEvents {
		if err := checkKeys(e); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
	}
	var tr Trace
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&tr); err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	for i, e := range tr.TraceEvents {
		if err := checkEvent(e); err != nil {
			return nil, fmt.Errorf("event %d (%s %q): %w", i, e.Ph, e.Name, err)
		}
	}
	if err := checkNames(tr.TraceEvents); err != nil {
		return nil, err
	}
	if err := checkOverlaps(tr.TraceEvents); err != nil {
		return nil, err
	}
	return &tr, nil
}

// checkKeys checks that an event has the keys every event must have, each
// of its kind: a zero or an empty value would read as a missing one.
func checkKeys(e map[string]json.RawMessage) error {
	for _, k := range []string{"ph", "ts", "pid", "tid", "name"} {
		v, ok := e[k]
		if !ok {
			return fmt.Errorf("no %s", k)
		}
		var err error
		switch k {
		case "ph", "name":
			var s string
			err = json.Unmarshal(v, &s)
		case "ts":
			var f float64
			err = json.Unmarshal(v, &f)
		default:
			var n int
			err = json.Unmarshal(v, &n)
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", k, v, err)
		}
	}
	if _, ok := e["dur"]; !ok && string(e["ph"]) == `"X"` {
		return errors.New("a complete slice (X) without dur")
	}
	return nil
}

func checkEvent(e Event) error {
	if math.IsNaN(e.TS) || math.IsInf(e.TS, 0) {
		return fmt.Errorf("ts %v", e.TS)
	}
	switch e.Ph {
	case "X":
		if e.Dur == nil || !(*e.Dur >= 0) {
			return errors.New("a complete slice (X) without a dur of 0 or more")
		}
	case "C", "i", "M":
		if e.Dur != nil {
			return fmt.Errorf("a dur on a %s event", e.Ph)
		}
	}
	switch e.Ph {
	case "X":
	case "C":
		if len(e.Args) == 0 {
			return errors.New("a counter without args")
		}
		for k, v := range e.Args {
			if _, ok := v.(json.Number); !ok {
				return fmt.Errorf("counter value %s is %v, not a number", k, v)
			}
		}
	case "M":
		switch e.Name {
		case "process_name", "thread_name":
			if s, ok := e.Args["name"].(string); !ok || s == "" {
				return fmt.Errorf("%s without args.name", e.Name)
			}
		case "process_sort_index", "thread_sort_index":
			if _, ok := e.Args["sort_index"].(json.Number); !ok {
				return fmt.Errorf("%s without args.sort_index", e.Name)
			}
		default:
			return fmt.Errorf("metadata %q", e.Name)
		}
	case "i":
		if e.S != "t" && e.S != "p" && e.S != "g" {
			return fmt.Errorf("an instant of scope %q", e.S)
		}
	default:
		return fmt.Errorf("phase %q, which corepin does not write", e.Ph)
	}
	return nil
}

type track struct{ pid, tid int }

// checkNames checks that every process is named, and every thread that
// has slices or thread instants.
func checkNames(ev []Event) error {
	procs, threads := map[int]bool{}, map[track]bool{}
	for _, e := range ev {
		switch {
		case e.Ph == "M" && e.Name == "process_name":
			procs[e.PID] = true
		case e.Ph == "M" && e.Name == "thread_name":
			threads[track{e.PID, e.TID}] = true
		}
	}
	for _, e := range ev {
		if e.Ph == "M" {
			continue
		}
		if !procs[e.PID] {
			return fmt.Errorf("process %d (of %s %q) has no process_name", e.PID, e.Ph, e.Name)
		}
		if (e.Ph == "X" || e.Ph == "i" && e.S == "t") && !threads[track{e.PID, e.TID}] {
			return fmt.Errorf("thread %d of process %d (of %s %q) has no thread_name", e.TID, e.PID, e.Ph, e.Name)
		}
	}
	return nil
}

// ns is a trace time in whole nanoseconds, as corepin writes them.
func ns(us float64) int64 { return int64(math.Round(us * 1000)) }

// checkOverlaps checks that on each track a slice ends before the next
// begins, or lies wholly inside it.
func checkOverlaps(ev []Event) error {
	byTrack := map[track][]Event{}
	for _, e := range ev {
		if e.Ph == "X" {
			t := track{e.PID, e.TID}
			byTrack[t] = append(byTrack[t], e)
		}
	}
	for t, xs := range byTrack {
		slices.SortStableFunc(xs, func(a, b Event) int {
			return cmp.Or(cmp.Compare(ns(a.TS), ns(b.TS)), cmp.Compare(ns(*b.Dur), ns(*a.Dur)))
		})
		var open []Event // the slices the next may lie inside, outermost first
		for _, e := range xs {
			for len(open) > 0 && ns(open[len(open)-1].TS)+ns(*open[len(open)-1].Dur) <= ns(e.TS) {
				open = open[:len(open)-1]
			}
			if len(open) > 0 {
				o := open[len(open)-1]
				if ns(e.TS)+ns(*e.Dur) > ns(o.TS)+ns(*o.Dur) {
					return fmt.Errorf("on track %d/%d, %q at %.3f µs for %.3f µs overlaps %q at %.3f µs for %.3f µs",
						t.pid, t.tid, e.Name, e.TS, *e.Dur, o.Name, o.TS, *o.Dur)
				}
			}
			open = append(open, e)
		}
	}
	return nil
}

// Tolerance is how far the slices' time outside the work may be from the
// run's others' time (Verify): the 1 ms within which the scheduler's two
// accounts of one window agree.
const Tolerance = 1e-3

// Agreement is one run's slices against its record: the others' time
// run.json gives, and the time of the slices outside the work in the
// run's window. Compared is false where there are no slices to add up,
// or no others' time to add them up to (Why says why: the tracer was not
// loaded, some slices were not kept, run.json's reading of the target is
// inconsistent).
type Agreement struct {
	Run      string
	OthersS  float64
	SlicesS  float64
	Compared bool
	Why      string
}

// Verify holds a trace to the run it was made of: each run is one slice
// on its benchmark's track over its measured window (between the readings
// of the target, which the work's own wall time lies within), no slice
// of others' time is drawn longer than the time charged to it, and where
// the slices of who ran on the target were kept whole, the time charged
// to those outside the work adds up to the run's others' time within
// Tolerance: the kernel's one account (sum_exec_runtime) of one window,
// like with like; where the others' time was read from /proc/stat's ticks
// (no cpuacct), within Tolerance and the readings' resolution. It returns each run's figures, and an error for the
// first that does not hold.
func Verify(run *results.Run, tr *Trace) ([]Agreement, error) {
	var out []Agreement
	b := &builder{run: run}
	for i, bench := range run.Benchmarks {
		for _, rec := range slices.Concat(bench.Runs, bench.DroppedRuns) {
			a, err := verifyRun(b, tr, i+1, bench.Name, rec)
			out = append(out, a)
			if err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

func verifyRun(b *builder, tr *Trace, tid int, bench string, rec results.RunRecord) (Agreement, error) {
	name := runName(bench, rec)
	a := Agreement{Run: name}
	var found []Event
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" && e.PID == RunsPID && e.TID == tid && e.Name == name {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		return a, fmt.Errorf("%s: %d slices on its benchmark's track, want 1", name, len(found))
	}
	start, end, _ := b.window(rec)
	s := found[0]
	if ns(s.TS) != start || ns(s.TS)+ns(*s.Dur) != end {
		return a, fmt.Errorf("%s: the slice is at %.3f µs for %.3f µs, its window at %.3f µs for %.3f µs", name, s.TS, *s.Dur, us(start), us(end-start))
	}
	o := others(rec)
	if o != nil && rec.WallS > o.WindowS+1e-6 {
		return a, fmt.Errorf("%s: the measured wall time %.6f s is longer than the window %.6f s", name, rec.WallS, o.WindowS)
	}
	if o == nil {
		a.Why = "run.json has no others' time for the run"
		return a, nil
	}
	a.OthersS = o.S
	if n, ok := number(s.Args["slices_left_out"]); ok && n > 0 {
		a.Why = fmt.Sprintf("%d slices were left out of the trace by its bound on events", int(n))
		return a, nil
	}
	switch {
	case rec.Scheduling.Sharing.Switches == nil:
		a.Why = "the scheduler's switch events were not traced"
		return a, nil
	case rec.Scheduling.Sharing.Switches.File == "":
		a.Why = "the slices were not kept"
		return a, nil
	case o.From.IsZero():
		a.Why = "run.json has no window for the slices' times"
		return a, nil
	case rec.Scheduling.Sharing.Switches.Lost > 0:
		a.Why = fmt.Sprintf("%d slices were not kept", rec.Scheduling.Sharing.Switches.Lost)
		return a, nil
	}
	for _, e := range tr.TraceEvents {
		if e.Ph != "X" || e.PID != CPUsPID || e.Cat != "others" || ns(e.TS) < start || ns(e.TS)+ns(*e.Dur) > end {
			continue
		}
		v, _ := number(e.Args["on_cpu_ms"])
		if ns(*e.Dur) > int64(math.Round(v*1e6)) {
			return a, fmt.Errorf("%s: %q at %.3f µs is drawn for %.3f µs as others' time, but charged %.3f µs", name, e.Name, e.TS, *e.Dur, 1000*v)
		}
		a.SlicesS += v / 1000
	}
	if why := inconsistent(o); why != "" {
		a.Why = why // the slices' sum is there to read, against no measurement
		return a, nil
	}
	a.Compared = true
	tolerance := Tolerance
	if !o.Exact {
		// /proc/stat's ticks, less the work's rusage: the others' time is
		// known to the readings' resolution, not to the nanosecond.
		tolerance += o.ResolutionS
		a.Why = fmt.Sprintf("run.json's others' time is from %s, known to %.1f ms", o.Source, 1000*o.ResolutionS)
	}
	if d := math.Abs(a.SlicesS - a.OthersS); d > tolerance {
		return a, fmt.Errorf("%s: the slices outside the work add up to %.3f ms, run.json's others' time is %.3f ms (%s), more than %.3f ms apart", name, 1000*a.SlicesS, 1000*a.OthersS, o.Source, 1000*tolerance)
	}
	return a, nil
}

// number is a value of an event's args as a number: decoded by Check, or
// as Build made it.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	case int:
		return float64(v), true
	}
	return 0, false
}
