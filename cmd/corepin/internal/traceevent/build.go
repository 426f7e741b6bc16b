package traceevent

import (
	"fmt"
	"math"
	"slices"
	"time"

	"corepin.dev/corepin/internal/oncpu/timeline"
	"corepin.dev/corepin/internal/samples"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// builder collects a run's events and what had to be left out.
type builder struct {
	run    *results.Run
	dir    string
	events []Event
	cpus   map[int]bool // CPUs with a track, named
	// limit bounds len(events) (MaxEvents); reserved is room kept for
	// the runs' own slices still to come, which every run has.
	limit, reserved int
	leftOut         []string
	moreLeftOut     int // notes past maxLeftOut, counted
}

// maxLeftOut bounds otherData.left_out: a run.json from elsewhere may
// have any number of runs, each with what it left out.
const maxLeftOut = 100

// Build makes the trace of a run whose results folder is dir. A file of
// the folder that cannot be read leaves its events out, and the trace's
// metadata says which and why: a trace is never refused for it.
func Build(run *results.Run, dir string) *Trace { return build(run, dir, MaxEvents) }

// build makes the trace with at most limit events. Each run's own slice
// comes first, room for it kept from the start; the rest of a run (its
// probes, who ran on the target, its telemetry) is added event by event
// while there is room, and what did not fit is said.
func build(run *results.Run, dir string, limit int) *Trace {
	b := &builder{run: run, dir: dir, cpus: map[int]bool{}, limit: limit}
	b.meta(RunsPID, 0, "process_name", "runs")
	b.meta(CPUsPID, 0, "process_name", "CPUs")
	b.meta(RunsPID, 0, "process_sort_index", 0)
	b.meta(CPUsPID, 0, "process_sort_index", 1)
	for _, bench := range run.Benchmarks {
		b.reserved += 2 + len(bench.Runs) + len(bench.DroppedRuns) // its track's names, its runs
	}
	skipped := 0
	for i, bench := range run.Benchmarks {
		tid := i + 1
		name := bench.Name
		if name == "" {
			name = fmt.Sprintf("benchmark %d", tid) // a run.json from elsewhere
		}
		b.reserved -= 2 + len(bench.Runs) + len(bench.DroppedRuns)
		if !b.add(metaEvent(RunsPID, tid, "thread_name", name), metaEvent(RunsPID, tid, "thread_sort_index", tid)) {
			skipped += len(bench.Runs) + len(bench.DroppedRuns)
			continue
		}
		b.reserved += len(bench.Runs) + len(bench.DroppedRuns)
		for _, rec := range slices.Concat(bench.Runs, bench.DroppedRuns) {
			if !b.addRun(tid, bench.Name, rec) {
				skipped++
			}
		}
	}
	if skipped > 0 {
		b.note(fmt.Sprintf("%d runs, the slices of the runs too (the trace holds at most %d events)", skipped, b.limit))
	}
	if b.moreLeftOut > 0 {
		b.leftOut = append(b.leftOut, fmt.Sprintf("and %d more of what is left out", b.moreLeftOut))
	}
	sortEvents(b.events)
	return &Trace{TraceEvents: b.events, DisplayTimeUnit: "ms", OtherData: b.otherData()}
}

// add adds events where the trace has room for them beside the runs'
// slices still to come, all of them or none, and reports which.
func (b *builder) add(ev ...Event) bool {
	if len(b.events)+b.reserved+len(ev) > b.limit {
		return false
	}
	b.events = append(b.events, ev...)
	return true
}

// track gives a CPU its track, named where it first appears, and reports
// whether it has one: a slice may go on it, as the names fit.
func (b *builder) track(cpu int) bool {
	if b.cpus[cpu] {
		return true
	}
	b.cpus[cpu] = b.add(metaEvent(CPUsPID, cpuTID(cpu), "thread_name", fmt.Sprintf("CPU %d", cpu)),
		metaEvent(CPUsPID, cpuTID(cpu), "thread_sort_index", cpu))
	return b.cpus[cpu]
}

// note says what was left out of the trace, the first maxLeftOut notes
// in full and the rest counted.
func (b *builder) note(what string) {
	if len(b.leftOut) == maxLeftOut {
		b.moreLeftOut++
		return
	}
	b.leftOut = append(b.leftOut, what)
}

// full is the reason a batch of a run's events stops short.
func (b *builder) full() string {
	return fmt.Sprintf("the trace holds at most %d events", b.limit)
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
			MaxSlicesPerRun, MaxCountersPerRun, b.limit),
		"left_out": left,
	}
}

// meta adds a process's metadata, which comes before anything else.
func (b *builder) meta(pid, tid int, name string, value any) {
	b.events = append(b.events, metaEvent(pid, tid, name, value))
}

func metaEvent(pid, tid int, name string, value any) Event {
	key := "name"
	if name == "process_sort_index" || name == "thread_sort_index" {
		key = "sort_index"
	}
	return Event{Name: name, Ph: "M", PID: pid, TID: tid, Args: map[string]any{key: value}}
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

// addRun adds a run: its slice over its window, and what fits of the
// rest. It reports whether the run's slice was added.
func (b *builder) addRun(tid int, bench string, rec results.RunRecord) bool {
	start, end, placed := b.window(rec)
	name := runName(bench, rec)
	args := runArgs(rec)
	if placed != "" {
		args["placed"] = placed
	}
	b.reserved--
	if !b.add(Event{Name: name, Cat: "run", Ph: "X", TS: us(start), Dur: dur(us(end - start)), PID: RunsPID, TID: tid, Args: args}) {
		return false
	}
	b.probes(tid, name, rec)
	b.whoRan(tid, name, args, rec, start, end)
	b.telemetry(name, rec)
	return true
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

// inconsistent says why the run's own reading of the target cannot be
// taken as a measurement, "" where it can: a busy time longer than the
// window on every target CPU (beyond the readings' own resolution) is
// time no window holds. The kernel charges a running thread's time at its
// next tick or switch, so a reading may count time from before the window
// in it; the others' time, the busy time less the work's, is then an
// artefact of the reading, and the trace says so rather than draw it.
func inconsistent(o *evidence.Others) string {
	if o == nil || o.CPUs <= 0 || !(o.BusyS > o.WindowS*float64(o.CPUs)+o.ResolutionS) {
		return ""
	}
	return fmt.Sprintf("run.json's reading of the target is inconsistent: its busy time, %.3f ms, is more than its window, %.3f ms × %d CPUs, "+
		"so its others' time, %.3f ms, is not a measurement (the kernel charges a running thread's time at its next tick or switch: time from before the window was read in it)",
		1000*o.BusyS, 1000*o.WindowS, o.CPUs, 1000*o.S)
}

// probes are the speed witness's two probes, instants where they began.
func (b *builder) probes(tid int, name string, rec results.RunRecord) {
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
		if !b.add(Event{Name: p.name, Cat: "speed", Ph: "i", S: "t", TS: us(b.at(p.probe.At)), PID: RunsPID, TID: tid, Args: args}) {
			b.note(name + ": the " + p.name + " (" + b.full() + ")")
		}
	}
}

// whoRan puts the run's slices on the target CPUs' tracks, and the others'
// share of the target as a counter over the run; where the slices are
// missing, an instant on the run's track says why. args are the run's
// slice's: they say how many slices did not fit in the trace.
func (b *builder) whoRan(tid int, name string, args map[string]any, rec results.RunRecord, start, end int64) {
	o := others(rec)
	if why := inconsistent(o); why != "" {
		args["others_reading"] = why
		if !b.add(Event{Name: "others' time: run.json's reading is inconsistent", Cat: "sharing", Ph: "i", S: "t", TS: us(start), PID: RunsPID, TID: tid,
			Args: map[string]any{"why": why, "target_busy_ms": 1000 * o.BusyS, "window_ms": 1000 * o.WindowS, "cpus": o.CPUs, "others_ms": 1000 * o.S}}) {
			b.note(name + ": " + why)
		}
	} else if o != nil && !b.add(
		Event{Name: "others' share of the target", Ph: "C", TS: us(start), PID: CPUsPID, TID: 0, Args: map[string]any{"%": 100 * o.Share}},
		Event{Name: "others' share of the target", Ph: "C", TS: us(end), PID: CPUsPID, TID: 0, Args: map[string]any{"%": 0.0}}) {
		b.note(name + ": the others' share of the target (" + b.full() + ")")
	}
	for _, cpu := range b.run.Target.CPUs().CPUs() {
		b.track(cpu)
	}
	shown, unshown, why := b.slices(rec, start, end)
	if unshown > 0 {
		args["slices_left_out"] = unshown
		b.note(fmt.Sprintf("%s: %d of its %d slices of who ran on the target (%s)", name, unshown, shown+unshown, b.full()))
	}
	if why == "" {
		return
	}
	iargs := map[string]any{"why": why}
	if o != nil {
		iargs["others_ms"] = 1000 * o.S
	}
	what := "who ran on the target: not recorded"
	if shown > 0 {
		what = "who ran on the target: partly recorded"
	}
	if !b.add(Event{Name: what, Cat: "switches", Ph: "i", S: "t", TS: us(start), PID: RunsPID, TID: tid, Args: iargs}) {
		b.note(name + ": " + what + " (" + b.full() + ")")
	}
	if rec.Scheduling != nil && rec.Scheduling.Sharing != nil && rec.Scheduling.Sharing.Switches != nil && rec.Scheduling.Sharing.Switches.File != "" {
		b.note(name + ": " + why)
	}
}

// slices adds the run's slices of who ran on the target, cut to its
// window; it returns how many it added, how many did not fit in the
// trace, and why there are none or why some are missing.
func (b *builder) slices(rec results.RunRecord, start, end int64) (shown, unshown int, why string) {
	var sh *evidence.Sharing
	if rec.Scheduling != nil {
		sh = rec.Scheduling.Sharing
	}
	switch {
	case sh == nil:
		return 0, 0, "the run has no sharing record"
	case sh.Switches == nil && sh.PreemptorsError != "":
		return 0, 0, "the scheduler's switch events were not traced: " + sh.PreemptorsError
	case sh.Switches == nil:
		return 0, 0, "the scheduler's switch events were not traced (corepin loads its BPF tracer as root, or with CAP_BPF and CAP_PERFMON, on a kernel with BTF)"
	case sh.Switches.Error != "":
		return 0, 0, sh.Switches.Error
	case sh.Switches.File == "":
		return 0, 0, "the slices were not kept in the results folder"
	case others(rec) == nil || others(rec).From.IsZero():
		return 0, 0, "the run has no window for the slices' times"
	}
	f, err := results.OpenIn(b.dir, sh.Switches.File)
	if err != nil {
		return 0, 0, "reading " + sh.Switches.File + ": " + err.Error()
	}
	defer f.Close()
	sl, err := timeline.ReadCSV(f, MaxSlicesPerRun)
	note := ""
	if err != nil {
		note = "reading " + sh.Switches.File + ": " + err.Error() // the slices before it are kept
	}
	ended := map[int]int64{} // each CPU's last slice's end: a file from elsewhere may overlap
	for i, s := range sl {
		from, to := max(start, start+nanos(s.Start)), min(end, start+nanos(s.End))
		if e, ok := ended[s.CPU]; ok {
			from = max(from, e)
		}
		if to < from {
			continue
		}
		if !b.track(s.CPU) || !b.add(drawSlice(s, from, to)...) {
			unshown = len(sl) - i
			break
		}
		ended[s.CPU] = to
		shown++
	}
	if sh.Switches.Lost > 0 {
		return shown, unshown, fmt.Sprintf("%d earlier slices of the window were not kept (each target CPU logs its latest ones): their time is in no slice", sh.Switches.Lost)
	}
	return shown, unshown, note
}

// uncharged is why a slice's wall time is longer than its run time.
const uncharged = "on the CPU but not charged to the thread by the kernel's account (sum_exec_runtime, which on_cpu_ms and run.json's others' time count): " +
	"interrupts and time the hypervisor stole, or, for a thread still running when the window was cut, run time the kernel charges only at the thread's next tick or switch"

// drawSlice is a slice of the timeline drawn from..to (ns since the run's
// start, the file's slice cut to the window): for its run time, the time
// charged to the thread, and where its wall time is longer, the rest
// after it as a slice of its own, "(not charged)", of cat uncharged. A
// slice cut shorter keeps its run time in proportion, as the runner cuts
// one to the window. So the others' time a viewer sees is the time
// charged to them: a thread still running at the window's end, whose
// time the kernel had not charged yet, is not drawn as others' time for
// all of its wall time (in one run, 2.4 ms of a compiler with 0 charged).
func drawSlice(s evidence.Slice, from, to int64) []Event {
	run := s.OnCPUS
	if wall := nanos(s.End) - nanos(s.Start); wall > 0 && to-from < wall {
		run *= float64(to-from) / float64(wall)
	}
	charged := min(to-from, nanos(run))
	cat := "others"
	if s.Work {
		cat = "work"
	}
	var out []Event
	if charged > 0 || to == from {
		out = append(out, Event{Name: s.Comm, Cat: cat, Ph: "X", TS: us(from), Dur: dur(us(charged)), PID: CPUsPID, TID: cpuTID(s.CPU),
			Args: map[string]any{"pid": s.PID, "tid": s.TID, "on_cpu_ms": 1000 * run, "work": s.Work}})
	}
	if rest := to - from - charged; rest > 0 {
		out = append(out, Event{Name: s.Comm + " (not charged)", Cat: "uncharged", Ph: "X", TS: us(from + charged), Dur: dur(us(rest)), PID: CPUsPID, TID: cpuTID(s.CPU),
			Args: map[string]any{"pid": s.PID, "tid": s.TID, "work": s.Work, "why": uncharged}})
	}
	return out
}

// telemetry puts the run's samples on the CPUs' counter tracks, at most
// MaxCountersPerRun instants of them (every k-th, where there are more).
// A sample's utilisation is of the period that ends at it, from the
// sampler's reading before (internal/samples), so it is drawn where that
// period began and holds until the next; its frequency is a reading at the
// sample's own instant, and is drawn there.
func (b *builder) telemetry(name string, rec results.RunRecord) {
	if rec.TelemetryCSV == "" {
		return
	}
	f, err := results.OpenIn(b.dir, rec.TelemetryCSV)
	if err != nil {
		b.note(name + ": telemetry: " + err.Error())
		return
	}
	defer f.Close()
	read, _, err := samples.ReadCSV(f)
	if err != nil {
		b.note(name + ": telemetry: " + err.Error()) // the samples before it are kept
	}
	t0 := rec.Telemetry.Started
	if t0.IsZero() {
		t0 = rec.Started
		if len(read) > 0 {
			b.note(name + ": the telemetry is placed from the run record's start, as this run.json has not its own")
		}
	}
	instants := map[float64]bool{}
	for _, s := range read {
		instants[s.T] = true
	}
	stride := 1
	if n := len(instants); n > MaxCountersPerRun {
		stride = (n + MaxCountersPerRun - 1) / MaxCountersPerRun
		b.note(fmt.Sprintf("%s: telemetry thinned to every %d-th of its %d instants", name, stride, n))
	}
	began := periods(read, b.run.Options.TelemetryPeriod)
	k, last, unshown := -1, math.NaN(), 0
	for i, s := range read {
		if s.T != last {
			k, last = k+1, s.T
		}
		if k%stride != 0 {
			continue
		}
		b.track(s.CPU) // a counter's track is the process's, its CPU's named as the rest are
		if s.UtilPct != nil && !b.add(Event{Name: fmt.Sprintf("CPU %d utilisation", s.CPU), Ph: "C", TS: us(b.at(t0) + nanos(began[i])), PID: CPUsPID, TID: 0, Args: map[string]any{"%": *s.UtilPct}}) {
			unshown++
		}
		if s.FreqMHz != nil && !b.add(Event{Name: fmt.Sprintf("CPU %d frequency", s.CPU), Ph: "C", TS: us(b.at(t0) + nanos(s.T)), PID: CPUsPID, TID: 0, Args: map[string]any{"MHz": *s.FreqMHz}}) {
			unshown++
		}
	}
	if unshown > 0 {
		b.note(fmt.Sprintf("%s: telemetry: %d of its counter points (%s)", name, unshown, b.full()))
	}
}

// periods is when each sample's period began, in the CSV's seconds: at
// the CPU's sample before it (the sampler's reading that its utilisation
// is counted from, which a failed reading leaves further back, and which
// the last sample, taken as the run ended, follows by less than a
// period), and for a CPU's first sample one period before it, but not
// before the CSV's start, its first reading; where run.json does not give
// the period, at that start.
func periods(read []samples.Sample, period float64) []float64 {
	out := make([]float64, len(read))
	prev := map[int]float64{}
	for i, s := range read {
		p, ok := prev[s.CPU]
		if !ok {
			p = 0
			if period > 0 {
				p = max(0, s.T-period)
			}
		}
		out[i], prev[s.CPU] = min(p, s.T), s.T
	}
	return out
}
