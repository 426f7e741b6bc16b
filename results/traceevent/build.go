package traceevent

import (
	"fmt"
	"math"
	"time"

	"corepin.dev/corepin/oncpu/timeline"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/telemetry/samples"
)

// builder collects a run's events and what had to be left out.
type builder struct {
	run     *results.Run
	dir     string
	events  []Event
	cpus    map[int]bool // CPUs with a track
	leftOut []string
}

// Build makes the trace of a run whose results folder is dir. A file of
// the folder that cannot be read leaves its events out, and the trace's
// metadata says which and why: a trace is never refused for it.
func Build(run *results.Run, dir string) *Trace {
	b := &builder{run: run, dir: dir, cpus: map[int]bool{}}
	b.meta(RunsPID, 0, "process_name", "runs")
	b.meta(CPUsPID, 0, "process_name", "CPUs")
	b.meta(RunsPID, 0, "process_sort_index", 0)
	b.meta(CPUsPID, 0, "process_sort_index", 1)
	for i, bench := range run.Benchmarks {
		tid := i + 1
		name := bench.Name
		if name == "" {
			name = fmt.Sprintf("benchmark %d", tid) // a run.json from elsewhere
		}
		b.meta(RunsPID, tid, "thread_name", name)
		b.meta(RunsPID, tid, "thread_sort_index", tid)
		for _, rec := range bench.Runs {
			b.addRun(tid, bench.Name, rec)
		}
		for _, rec := range bench.DroppedRuns {
			b.addRun(tid, bench.Name, rec)
		}
	}
	for cpu := range b.cpus {
		b.meta(CPUsPID, cpuTID(cpu), "thread_name", fmt.Sprintf("CPU %d", cpu))
		b.meta(CPUsPID, cpuTID(cpu), "thread_sort_index", cpu)
	}
	sortEvents(b.events)
	return &Trace{TraceEvents: b.events, DisplayTimeUnit: "ms", OtherData: b.otherData()}
}

// cpuTID is a CPU's thread in the CPUs process.
func cpuTID(cpu int) int { return cpu + 1 }

func (b *builder) otherData() map[string]any {
	r := b.run
	left := b.leftOut
	if left == nil {
		left = []string{}
	}
	return map[string]any{
		"clock": "ts is µs since run.json's started (" + r.Started.UTC().Format(time.RFC3339Nano) +
			"), on the wall clock as run.json's times; the runs' windows, the speed probes, the telemetry and the slices are all on it",
		"started":         r.Started.UTC().Format(time.RFC3339Nano),
		"host":            r.Host.Hostname,
		"corepin_version": r.Host.Corepin,
		"target":          r.Target.CPUs().String(),
		"bounds": fmt.Sprintf("at most %d slices of who ran on the target and %d telemetry instants a run, %d events in all",
			MaxSlicesPerRun, MaxCountersPerRun, MaxEvents),
		"left_out": left,
	}
}

func (b *builder) meta(pid, tid int, name string, value any) {
	key := "name"
	if name == "process_sort_index" || name == "thread_sort_index" {
		key = "sort_index"
	}
	b.events = append(b.events, Event{Name: name, Ph: "M", PID: pid, TID: tid, Args: map[string]any{key: value}})
}

// at is a moment in ns since the run's start, on the wall clock: a time
// still holding Go's monotonic reading (the run just made) is taken as
// run.json has it.
func (b *builder) at(t time.Time) int64 { return t.Round(0).Sub(b.run.Started.Round(0)).Nanoseconds() }

// us turns ns since the run's start into the trace's µs.
func us(ns int64) float64 { return float64(ns) / 1000 }

// nanos turns seconds into ns, as the slices' and windows' times are
// written.
// finite is v for an argument, nil (null) where it is not a number: a
// time not measured is NaN in the model, and JSON has no NaN.
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func nanos(s float64) int64 {
	ns := math.Round(s * 1e9)
	switch {
	case math.IsNaN(ns):
		return 0
	case ns > math.MaxInt64/4: // a run.json from elsewhere: kept within reach of sums
		return math.MaxInt64 / 4
	case ns < math.MinInt64/4:
		return math.MinInt64 / 4
	}
	return int64(ns)
}

// runName is a run's slice's name: "fib #3", with a warm-up or a dropped
// run said.
func runName(bench string, rec results.RunRecord) string {
	name := fmt.Sprintf("%s #%d", bench, rec.Index)
	switch {
	case rec.Dropped != "":
		name += " (dropped)"
	case rec.Warmup:
		name += " (warm-up)"
	}
	return name
}

// window is when the run's target was measured, in ns since the run's
// start: between the two readings of its busy time, which the work lies
// within. A run.json without them places the run at its record's start
// for its wall time, and says so.
func (b *builder) window(rec results.RunRecord) (start, end int64, placed string) {
	if o := others(rec); o != nil && !o.From.IsZero() {
		start = b.at(o.From)
		return start, start + max(0, nanos(o.WindowS)), ""
	}
	start = b.at(rec.Started)
	return start, start + max(0, nanos(rec.WallS)), "at the start of the run's record, for its wall time: this run.json has no window of the target's readings"
}

func (b *builder) addRun(tid int, bench string, rec results.RunRecord) {
	start, end, placed := b.window(rec)
	name := runName(bench, rec)
	args := runArgs(rec)
	if placed != "" {
		args["placed"] = placed
	}
	b.events = append(b.events, Event{Name: name, Cat: "run", Ph: "X", TS: us(start), Dur: dur(us(end - start)), PID: RunsPID, TID: tid, Args: args})
	b.probes(tid, rec)
	if len(b.events) >= MaxEvents {
		b.leftOut = append(b.leftOut, name+": who ran on the target and the telemetry (the trace holds "+fmt.Sprint(MaxEvents)+" events)")
		return
	}
	b.whoRan(tid, name, rec, start, end)
	b.telemetry(name, rec)
}

// runArgs are what the run's slice shows of its record: the verdict and
// the figures it was judged by.
func runArgs(rec results.RunRecord) map[string]any {
	verdict := "valid"
	switch {
	case rec.Dropped != "":
		verdict = "dropped: " + rec.Dropped
	case !rec.Valid:
		verdict = "invalid: " + rec.Error
	}
	a := map[string]any{"verdict": verdict, "wall_s": finite(rec.WallS), "warmup": rec.Warmup}
	if rec.Sharing != "" {
		a["sharing"] = rec.Sharing
	}
	if o := others(rec); o != nil {
		a["others_ms"] = 1000 * o.S
		a["others_source"] = o.Source
		a["window_s"] = o.WindowS
	}
	if rec.Speed != nil {
		a["speed"] = *rec.Speed // the run's own, against its benchmark's best run
	}
	if rec.SlowedBy != "" {
		a["slowed_by"] = rec.SlowedBy
	}
	if rec.SpeedBefore != nil {
		a["speed_before"] = *rec.SpeedBefore
	}
	if rec.SpeedAfter != nil {
		a["speed_after"] = *rec.SpeedAfter
	}
	if s := rec.Scheduling; s != nil && s.Watch != nil {
		var threads []map[string]any
		for _, th := range s.Watch.Threads {
			threads = append(threads, map[string]any{"tid": th.TID, "name": th.Name, "cpu_s": th.CPUSeconds, "on_target_ratio": th.OnTargetRatio})
		}
		a["threads"] = threads // the watcher's: how much and where, not when
	}
	return a
}

// others is the run's record of the others' time on the target; nil where
// there is none.
func others(rec results.RunRecord) *evidence.Others {
	if s := rec.Scheduling; s != nil && s.Sharing != nil {
		return s.Sharing.Others
	}
	return nil
}

// probes are the speed witness's two probes, instants where they began.
func (b *builder) probes(tid int, rec results.RunRecord) {
	for _, p := range []struct {
		name  string
		probe *results.SpeedProbe
		speed *float64
	}{{"speed probe before", rec.ProbeBefore, rec.SpeedBefore}, {"speed probe after", rec.ProbeAfter, rec.SpeedAfter}} {
		if p.probe == nil || p.probe.At.IsZero() {
			continue
		}
		args := map[string]any{"rate": finite(p.probe.Rate), "wall_s": finite(p.probe.WallS), "cpu": p.probe.CPU}
		if p.speed != nil {
			args["speed"] = *p.speed
		}
		if p.probe.OnCPU != nil {
			args["on_cpu"] = *p.probe.OnCPU
		}
		b.events = append(b.events, Event{Name: p.name, Cat: "speed", Ph: "i", S: "t", TS: us(b.at(p.probe.At)), PID: RunsPID, TID: tid, Args: args})
	}
}

// whoRan puts the run's slices on the target CPUs' tracks, and the others'
// share of the target as a counter over the run; where the slices are
// missing, an instant on the run's track says why.
func (b *builder) whoRan(tid int, name string, rec results.RunRecord, start, end int64) {
	o := others(rec)
	if o != nil {
		b.events = append(b.events,
			Event{Name: "others' share of the target", Ph: "C", TS: us(start), PID: CPUsPID, TID: 0, Args: map[string]any{"%": 100 * o.Share}},
			Event{Name: "others' share of the target", Ph: "C", TS: us(end), PID: CPUsPID, TID: 0, Args: map[string]any{"%": 0.0}})
	}
	for _, cpu := range b.run.Target.CPUs().CPUs() {
		b.cpus[cpu] = true
	}
	shown, why := b.slices(rec, start, end)
	if why == "" {
		return
	}
	args := map[string]any{"why": why}
	if o != nil {
		args["others_ms"] = 1000 * o.S
	}
	what := "who ran on the target: not recorded"
	if shown > 0 {
		what = "who ran on the target: partly recorded"
	}
	b.events = append(b.events, Event{Name: what, Cat: "switches", Ph: "i", S: "t", TS: us(start), PID: RunsPID, TID: tid, Args: args})
	if rec.Scheduling != nil && rec.Scheduling.Sharing != nil && rec.Scheduling.Sharing.Switches != nil && rec.Scheduling.Sharing.Switches.File != "" {
		b.leftOut = append(b.leftOut, name+": "+why)
	}
}

// slices adds the run's slices of who ran on the target, cut to its
// window; it returns how many it added, and why there are none or why
// some are missing.
func (b *builder) slices(rec results.RunRecord, start, end int64) (shown int, why string) {
	var sh *evidence.Sharing
	if rec.Scheduling != nil {
		sh = rec.Scheduling.Sharing
	}
	switch {
	case sh == nil:
		return 0, "the run has no sharing record"
	case sh.Switches == nil && sh.PreemptorsError != "":
		return 0, "the scheduler's switch events were not traced: " + sh.PreemptorsError
	case sh.Switches == nil:
		return 0, "the scheduler's switch events were not traced (corepin loads its BPF tracer as root, or with CAP_BPF and CAP_PERFMON, on a kernel with BTF)"
	case sh.Switches.Error != "":
		return 0, sh.Switches.Error
	case sh.Switches.File == "":
		return 0, "the slices were not kept in the results folder"
	case others(rec) == nil || others(rec).From.IsZero():
		return 0, "the run has no window for the slices' times"
	}
	f, err := results.OpenIn(b.dir, sh.Switches.File)
	if err != nil {
		return 0, "reading " + sh.Switches.File + ": " + err.Error()
	}
	defer f.Close()
	sl, err := timeline.ReadCSV(f, MaxSlicesPerRun)
	note := ""
	if err != nil {
		note = "reading " + sh.Switches.File + ": " + err.Error() // the slices before it are kept
	}
	ended := map[int]int64{} // each CPU's last slice's end: a file from elsewhere may overlap
	for _, s := range sl {
		from, to := max(start, start+nanos(s.Start)), min(end, start+nanos(s.End))
		if e, ok := ended[s.CPU]; ok {
			from = max(from, e)
		}
		if to < from {
			continue
		}
		ended[s.CPU] = to
		cat := "others"
		if s.Work {
			cat = "work"
		}
		b.cpus[s.CPU] = true
		shown++
		b.events = append(b.events, Event{Name: s.Comm, Cat: cat, Ph: "X", TS: us(from), Dur: dur(us(to - from)), PID: CPUsPID, TID: cpuTID(s.CPU),
			Args: map[string]any{"pid": s.PID, "tid": s.TID, "on_cpu_ms": 1000 * s.OnCPUS, "work": s.Work}})
	}
	if sh.Switches.Lost > 0 {
		return shown, fmt.Sprintf("%d earlier slices of the window were not kept (each target CPU logs its latest ones): their time is in no slice", sh.Switches.Lost)
	}
	return shown, note
}

// telemetry puts the run's samples on the CPUs' counter tracks, at most
// MaxCountersPerRun instants of them (every k-th, where there are more).
func (b *builder) telemetry(name string, rec results.RunRecord) {
	if rec.TelemetryCSV == "" {
		return
	}
	f, err := results.OpenIn(b.dir, rec.TelemetryCSV)
	if err != nil {
		b.leftOut = append(b.leftOut, name+": telemetry: "+err.Error())
		return
	}
	defer f.Close()
	read, _, err := samples.ReadCSV(f)
	if err != nil {
		b.leftOut = append(b.leftOut, name+": telemetry: "+err.Error()) // the samples before it are kept
	}
	t0 := rec.Telemetry.Started
	if t0.IsZero() {
		t0 = rec.Started
		if len(read) > 0 {
			b.leftOut = append(b.leftOut, name+": the telemetry is placed from the run record's start, as this run.json has not its own")
		}
	}
	instants := map[float64]bool{}
	for _, s := range read {
		instants[s.T] = true
	}
	stride := 1
	if n := len(instants); n > MaxCountersPerRun {
		stride = (n + MaxCountersPerRun - 1) / MaxCountersPerRun
		b.leftOut = append(b.leftOut, fmt.Sprintf("%s: telemetry thinned to every %d-th of its %d instants", name, stride, n))
	}
	k, last := -1, math.NaN()
	for _, s := range read {
		if s.T != last {
			k, last = k+1, s.T
		}
		if k%stride != 0 {
			continue
		}
		ts := us(b.at(t0) + nanos(s.T))
		b.cpus[s.CPU] = true
		if s.UtilPct != nil {
			b.events = append(b.events, Event{Name: fmt.Sprintf("CPU %d utilisation", s.CPU), Ph: "C", TS: ts, PID: CPUsPID, TID: 0, Args: map[string]any{"%": *s.UtilPct}})
		}
		if s.FreqMHz != nil {
			b.events = append(b.events, Event{Name: fmt.Sprintf("CPU %d frequency", s.CPU), Ph: "C", TS: ts, PID: CPUsPID, TID: 0, Args: map[string]any{"MHz": *s.FreqMHz}})
		}
	}
}
