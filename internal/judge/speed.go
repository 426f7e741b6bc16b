package judge

import (
	"cmp"
	"slices"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// The speed verdict's thresholds. A run is called slowed only when its own
// time says so and what was measured during it says by what: a probe of
// a millisecond on a cloud vCPU reads anywhere from a third to all of the
// core's best speed from one moment to the next, while whole runs of the
// same work on the same idle machine vary by a few percent
// (bench/speed-witness.sh), so a probe alone never speaks for a run.
const (
	// SpeedWarn: a run whose own speed is further than this below its
	// benchmark's best run may be called slowed.
	SpeedWarn = 0.10
	// SteadyBand: a run whose time is within this share above its
	// benchmark's median is steady, never called slowed: it is the
	// benchmark's own spread, whatever a probe read.
	SteadyBand = 0.05
	// ProbeAgrees: a probe after the run that read below this fraction of
	// its best agrees that the core was slow, where the run's own CPU time
	// grew.
	ProbeAgrees = 0.90
	// CPUGrew: a run's CPU time this much above its best run's says the
	// work needed more of the core's time; nearer, it is the account's
	// own noise.
	CPUGrew = 0.05
)

// JudgeSpeed says whether rec, a counted run, was slowed against its
// benchmark's runs (ref), and by what (results.RunRecord.SlowedBy): only
// where its own speed is below 1 - SpeedWarn, its time more than
// SteadyBand above the benchmark's median, and what was measured during
// it accounts for at least half of the time it lost against the best run.
// It sets the run's speed figures against ref first, and reports whether
// the run was called slowed.
func (w Words) JudgeSpeed(rec *results.RunRecord, ref results.SpeedReference) bool {
	rec.SetSpeed(ref)
	rec.SlowedBy = ""
	s, ok := rec.OwnSpeed()
	best, haveBest := ref.Best()
	if !ok || !haveBest || rec.Warmup || s >= 1-SpeedWarn || rec.WallS <= ref.MedianS*(1+SteadyBand) {
		return false
	}
	if c := lossCauses(rec, best); len(c) > 0 {
		rec.SlowedBy = c.text(w.Flags)
	}
	return rec.Slowed()
}

// cause is one thing measured during a run that accounts for some of the
// time it lost against its benchmark's best run.
type cause struct {
	s    float64 // how much of the loss it accounts for
	what Params
}

// causes are what accounts for a run's lost time, the most first; only
// those of at least a tenth of the loss are said.
type causes []cause

func (cs causes) text(fl Flags) string {
	var s string
	for i, c := range cs {
		if i > 0 {
			s += "; "
		}
		s += c.what.text(fl)
	}
	return s
}

// lossCauses are what, measured during the run, accounts for the time it
// lost against the best run, nil when that is less than half of it. The
// loss is split by the work's own account: CPU time above the best run's
// is time the core took longer over the same work (the core's own speed,
// said only where the probe after the run agrees: a run's CPU time also
// grows with work that did more); the rest is time off the CPU, which
// others on the target, the hypervisor's steal and a CPU bandwidth limit
// account for where they were measured.
func lossCauses(r *results.RunRecord, best results.RunRecord) causes {
	lost := r.WallS - best.WallS
	cpu, bestCPU := r.UserS+r.SysS, best.UserS+best.SysS
	var cpuPart, cpuFactor float64
	if cpu > 0 && bestCPU > 0 {
		cpuFactor = cpu / bestCPU
		cpuPart = min(max(best.WallS*(cpuFactor-1), 0), lost)
	}
	cs := offCPU(r, lost-cpuPart)
	if cpuFactor >= 1+CPUGrew && r.SpeedAfter != nil && *r.SpeedAfter < ProbeAgrees {
		cs = append(cs, cause{cpuPart, slowCore{factor: cpuFactor, probe: *r.SpeedAfter, freq: freqOf(r.Telemetry)}})
	}
	var explained float64
	for _, c := range cs {
		explained += c.s
	}
	if explained < lost/2 {
		return nil
	}
	slices.SortStableFunc(cs, func(a, b cause) int { return cmp.Compare(b.s, a.s) })
	return slices.DeleteFunc(cs, func(c cause) bool { return c.s < lost/10 })
}

// offCPU are the causes of the run's time off the CPU (waitPart of its
// loss), each up to what the ones before it leave. A limit on the work's
// own cgroup comes first: while it held the work back, others may have
// run on the idle target, which is then not what slowed the work.
func offCPU(r *results.RunRecord, waitPart float64) causes {
	var cs causes
	var waited float64
	add := func(s float64, p Params) {
		if s <= 0 {
			return
		}
		part := min(s, waitPart-waited)
		waited += part
		cs = append(cs, cause{part, p})
	}
	if r.ThrottledS != nil {
		add(*r.ThrottledS, throttled{s: *r.ThrottledS, cgroup: r.ThrottledCgroup})
	}
	if r.StealS != nil {
		add(*r.StealS, steal{s: *r.StealS})
	}
	if r.OthersS != nil {
		var names string
		if r.Scheduling != nil && r.Scheduling.Sharing != nil {
			names = evidence.PreemptorsText(r.Scheduling.Sharing.Preemptors)
		}
		add(*r.OthersS, othersTook{s: *r.OthersS, names: names})
	}
	return cs
}

// freqOf is the target's frequency during a run, only where cpufreq gives
// it: /proc/cpuinfo's "cpu MHz" in a VM is often the host's nominal
// clock, the same whatever the core did.
func freqOf(t results.TelemetryStats) *frequencyRange {
	if t.FreqMinMHz == nil || t.FreqMaxMHz == nil || t.FreqMeanMHz == nil || t.FreqSource == results.FreqSourceCpuinfo || t.FreqSource == results.FreqSourceNone {
		return nil
	}
	return &frequencyRange{min: *t.FreqMinMHz, max: *t.FreqMaxMHz, mean: *t.FreqMeanMHz, source: t.FreqSource}
}
