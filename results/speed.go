package results

import (
	"fmt"
	"math"
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

// Best is the benchmark's best run, and whether it has one.
func (ref SpeedReference) Best() (RunRecord, bool) { return ref.best, ref.haveBst }

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

// settleSpeed sets every run's speed figures against the benchmark's
// reference, dropped runs' too; whether a run was slowed is the judge's
// to say (RunRecord.SlowedBy), and is kept as it was found.
func (b *Benchmark) settleSpeed() {
	ref := b.SpeedReference()
	b.SpeedBestRate = ref.ProbeBest
	for i := range b.Runs {
		b.Runs[i].SetSpeed(ref)
	}
	for i := range b.DroppedRuns {
		b.DroppedRuns[i].SetSpeed(ref)
	}
}

// SetSpeed sets the run's own speed against ref (nil where it is not
// a time, or nothing is), and its probe's reading as a fraction of the
// best probe.
func (r *RunRecord) SetSpeed(ref SpeedReference) {
	r.Speed = nil
	r.SpeedBefore, r.SpeedAfter = fractionOf(r.ProbeBefore, ref.ProbeBest), fractionOf(r.ProbeAfter, ref.ProbeBest)
	if !completed(*r) || !ref.haveBst {
		return
	}
	s := min(1, ref.best.WallS/r.WallS)
	r.Speed = &s
}

func fractionOf(p *SpeedProbe, best float64) *float64 {
	if p == nil || best <= 0 {
		return nil
	}
	v := p.Rate / best
	return &v
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

// SpeedText is the claim on a slowed run, as the judge made it: how much
// slower than its benchmark's best run it was, and by what (SlowedBy).
func (r *RunRecord) SpeedText() string {
	s, _ := r.OwnSpeed()
	return fmt.Sprintf("slowed: it ran at %.2f of its best run's speed (%.2f× its time): %s", s, 1/s, r.SlowedBy)
}
