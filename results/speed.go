package results

import (
	"fmt"
	"math"
	"slices"
	"strings"

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

// SpeedReference is what a run's own time is judged against: its
// benchmark's best run and its median.
type SpeedReference struct {
	best    RunRecord
	haveBst bool
	MedianS float64
	// ProbeBest is the best rate of the speed probe for the benchmark.
	ProbeBest float64
}

// BestS is the best run's time; 0 when there is none.
func (ref SpeedReference) BestS() float64 {
	if !ref.haveBst {
		return 0
	}
	return ref.best.WallS
}

// completed reports whether r is a time: it ran to its end without an
// error, and its wall time was measured.
func completed(r RunRecord) bool {
	return r.Error == "" && r.Timed() && r.WallS > 0 && !math.IsInf(r.WallS, 0)
}

// SpeedReference is the benchmark's reference as its runs stand: the
// fastest of every completed run, warm-ups and dropped runs included (the
// same work), and the median of the completed counted runs where there
// are three or more, else of those and the warm-ups together (a single
// counted run is its own median, and a warm-up is the same work).
func (b *Benchmark) SpeedReference() SpeedReference {
	ref := SpeedReference{ProbeBest: bestRate(b.SpeedBestRate, b.Runs, b.DroppedRuns)}
	var counted, all []float64
	for _, rs := range [][]RunRecord{b.Runs, b.DroppedRuns} {
		for _, r := range rs {
			if !completed(r) {
				continue
			}
			if !ref.haveBst || r.WallS < ref.best.WallS {
				ref.best, ref.haveBst = r, true
			}
		}
	}
	for _, r := range b.Runs {
		if !completed(r) {
			continue
		}
		all = append(all, r.WallS)
		if !r.Warmup {
			counted = append(counted, r.WallS)
		}
	}
	if len(counted) < 3 {
		counted = all
	}
	ref.MedianS = median(counted)
	return ref
}

// bestRate is the best of rate and every probe rate of runs.
func bestRate(rate float64, runs ...[]RunRecord) float64 {
	for _, rs := range runs {
		for _, r := range rs {
			for _, p := range []*SpeedProbe{r.ProbeBefore, r.ProbeAfter} {
				if p != nil && p.Rate > rate {
					rate = p.Rate
				}
			}
		}
	}
	return rate
}

// settleSpeed judges every run's speed against the benchmark's reference.
// A dropped run keeps the reason it was dropped for; its figures are set
// against the reference too.
func (b *Benchmark) settleSpeed() {
	ref := b.SpeedReference()
	b.SpeedBestRate = ref.ProbeBest
	for i := range b.Runs {
		b.Runs[i].JudgeSpeed(ref)
	}
	for i := range b.DroppedRuns {
		b.DroppedRuns[i].JudgeSpeed(ref)
		b.DroppedRuns[i].SlowedBy = ""
	}
}

// JudgeSpeed sets the run's own speed against ref, its probe's reading as
// a fraction of the best probe, and, for a counted run whose time and
// witness agree that it was slowed, by what (SlowedBy).
func (r *RunRecord) JudgeSpeed(ref SpeedReference) {
	r.Speed, r.SlowedBy = nil, ""
	r.SpeedBefore, r.SpeedAfter = fractionOf(r.ProbeBefore, ref.ProbeBest), fractionOf(r.ProbeAfter, ref.ProbeBest)
	if !completed(*r) || !ref.haveBst {
		return
	}
	s := min(1, ref.best.WallS/r.WallS)
	r.Speed = &s
	if r.Warmup || s >= 1-SpeedWarn || r.WallS <= ref.MedianS*(1+SteadyBand) {
		return
	}
	r.SlowedBy = r.slowedBy(ref)
}

func fractionOf(p *SpeedProbe, best float64) *float64 {
	if p == nil || best <= 0 {
		return nil
	}
	v := p.Rate / best
	return &v
}

// slowedBy says what, measured during the run, accounts for the time it
// lost against the best run, or "" when that is less than half of it.
// The loss is split by the work's own account: CPU time above the best
// run's is time the core took longer over the same work (the core's own
// speed, said only where the probe after the run agrees: a run's CPU time
// also grows with work that did more); the rest is time off the CPU,
// which others on the target, the hypervisor's steal and a CPU bandwidth
// limit account for where they were measured.
func (r *RunRecord) slowedBy(ref SpeedReference) string {
	best := ref.best
	lost := r.WallS - best.WallS
	cpu, bestCPU := r.UserS+r.SysS, best.UserS+best.SysS
	var cpuPart, cpuFactor float64
	if cpu > 0 && bestCPU > 0 {
		cpuFactor = cpu / bestCPU
		cpuPart = min(max(best.WallS*(cpuFactor-1), 0), lost)
	}
	waitPart := lost - cpuPart
	type cause struct {
		s    float64 // how much of the loss it accounts for
		text string
	}
	var causes []cause
	var waited float64 // what the causes off the CPU account for
	offCPU := func(s float64, text string) {
		if s <= 0 {
			return
		}
		part := min(s, waitPart-waited)
		waited += part
		causes = append(causes, cause{part, text})
	}
	// A limit on the work's own cgroup is said first: while it held the
	// work back, others may have run on the idle target, which is then
	// not what slowed the work.
	if r.ThrottledS != nil {
		offCPU(*r.ThrottledS, fmt.Sprintf("a CPU bandwidth limit held its cgroup back for %s (%s, cpu.stat)", FormatSeconds(*r.ThrottledS), r.ThrottledCgroup))
	}
	if r.StealS != nil {
		offCPU(*r.StealS, "the hypervisor took "+FormatSeconds(*r.StealS)+" of the target (steal)")
	}
	if r.OthersS != nil {
		text := "others took " + FormatSeconds(*r.OthersS) + " of the target during it"
		if names := r.preemptors(); names != "" {
			text += " (" + names + ")"
		}
		offCPU(*r.OthersS, text)
	}
	if cpuFactor >= 1+CPUGrew && r.SpeedAfter != nil && *r.SpeedAfter < ProbeAgrees {
		causes = append(causes, cause{cpuPart, fmt.Sprintf("it needed %.2f× its best run's CPU time, and the speed probe after it read the core at %.2f of its best: the core ran it slower (from outside this machine's scheduler%s)",
			cpuFactor, *r.SpeedAfter, r.frequency())})
	}
	var explained float64
	for _, c := range causes {
		explained += c.s
	}
	if explained < lost/2 {
		return ""
	}
	slices.SortStableFunc(causes, func(a, b cause) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	var texts []string
	for _, c := range causes {
		if c.s >= lost/10 {
			texts = append(texts, c.text)
		}
	}
	return strings.Join(texts, "; ")
}

// preemptors names the others that ran on the target, where corepin
// traced them.
func (r *RunRecord) preemptors() string {
	if r.Scheduling == nil || r.Scheduling.Sharing == nil {
		return ""
	}
	return evidence.PreemptorsText(r.Scheduling.Sharing.Preemptors)
}

// frequency is the target's frequency beside the speed, only where cpufreq
// gives it: /proc/cpuinfo's "cpu MHz" in a VM is often the host's nominal
// clock, the same whatever the core did.
func (r *RunRecord) frequency() string {
	t := r.Telemetry
	if t.FreqMinMHz == nil || t.FreqMaxMHz == nil || t.FreqMeanMHz == nil || t.FreqSource == FreqSourceCpuinfo || t.FreqSource == FreqSourceNone {
		return ""
	}
	return fmt.Sprintf("; frequency %.0f–%.0f MHz, mean %.0f (%s)", *t.FreqMinMHz, *t.FreqMaxMHz, *t.FreqMeanMHz, t.FreqSource)
}

// Slowed reports whether the run was called slowed.
func (r *RunRecord) Slowed() bool { return r.SlowedBy != "" }

// OwnSpeed is the run's own speed against its benchmark's best run, and
// whether it has one.
func (r *RunRecord) OwnSpeed() (float64, bool) {
	if r.Speed == nil {
		return 0, false
	}
	return *r.Speed, true
}

// SpeedText is the claim on a slowed run: how much slower than its
// benchmark's best run it was, and by what.
func (r *RunRecord) SpeedText() string {
	s, _ := r.OwnSpeed()
	return fmt.Sprintf("slowed: it ran at %.2f of its best run's speed (%.2f× its time): %s", s, 1/s, r.SlowedBy)
}
