package spec

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"corepin.dev/corepin/results"
)

// SPEC's figure of a run (the harness's calc_mean_rate, calc_mean_speed
// and median_ratio): per benchmark, of its valid iterations ("S"; for
// speed, of one copy) sorted by time, the one at n/2, which for an even
// count is the lower median ratio; the geometric mean of those ratios
// over the benchmarks, for a rate run of the copy count whose mean is
// the highest; rounded to the timer's decimal places.

// meanPlaces are the decimals SPEC rounds its means to: a microsecond
// timer's.
const meanPlaces = 6

// Mean is SPEC's mean of the iterations of one tuning that keep says may
// count; nil when none may.
func Mean(its []Iteration, runmode, tune string, keep func(Iteration) bool) *float64 {
	type group struct {
		copies int
		bench  string
	}
	valid := map[group][]Iteration{}
	for _, it := range its {
		if it.Tune != tune || it.Valid != "S" || it.ReportedS == nil || it.Ratio == nil || !keep(it) {
			continue
		}
		if runmode != "rate" && it.Copies != 1 {
			continue
		}
		g := group{it.Copies, it.Benchmark}
		valid[g] = append(valid[g], it)
	}
	logSum, count := map[int]float64{}, map[int]int{}
	for g, list := range valid {
		slices.SortStableFunc(list, func(a, b Iteration) int { return cmp.Compare(*a.ReportedS, *b.ReportedS) })
		ratio := *list[len(list)/2].Ratio
		if ratio <= 0 {
			continue
		}
		logSum[g.copies] += math.Log(ratio)
		count[g.copies]++
	}
	var best *float64
	for copies, n := range count {
		m := round(math.Exp(logSum[copies]/float64(n)), meanPlaces)
		if best == nil || m > *best {
			best = &m
		}
	}
	return best
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// means recomputes the run's base and peak means from its iterations, as
// SPEC does and without the iterations corepin's reports make invalid,
// and says where SPEC's own differs from the recomputed one by more than
// its last place.
func (im *Import) means(sr *results.SpecRun, invalid map[iterationKey]bool) {
	its, mode := im.Result.Iterations, im.Result.Runmode
	all := func(Iteration) bool { return true }
	clean := func(it Iteration) bool { return !invalid[iterationKey{it.Name(), it.Number}] }
	sr.RecomputedBaseMean, sr.RecomputedPeakMean = Mean(its, mode, "base", all), Mean(its, mode, "peak", all)
	sr.EvidenceBaseMean, sr.EvidencePeakMean = Mean(its, mode, "base", clean), Mean(its, mode, "peak", clean)
	var notes []string
	for _, m := range []struct {
		tune        string
		spec, again *float64
	}{{"base", sr.BaseMean, sr.RecomputedBaseMean}, {"peak", sr.PeakMean, sr.RecomputedPeakMean}} {
		switch {
		case m.spec == nil && m.again == nil:
		case m.spec == nil:
			notes = append(notes, fmt.Sprintf("SPEC wrote no %s mean; recomputed from its selected iterations it is %g", m.tune, *m.again))
		case m.again == nil:
			notes = append(notes, fmt.Sprintf("SPEC's %s mean is %g, but none of its iterations is valid to recompute it from", m.tune, *m.spec))
		case math.Abs(*m.spec-*m.again) > 1.5*math.Pow(10, -meanPlaces):
			notes = append(notes, fmt.Sprintf("SPEC's %s mean %g differs from the one recomputed from its iterations, %g", m.tune, *m.spec, *m.again))
		}
	}
	notes = append(notes, ratioNotes(its, mode)...)
	if len(notes) > 0 {
		sr.MeanNote = notes[0]
		for _, n := range notes[1:] {
			sr.MeanNote += "; " + n
		}
	}
}

// ratioNotes says where an iteration's ratio is not what its time and
// reference make it: copies × reference / time for rate, reference /
// time for speed (within 1e-4, as the file's time and ratio are rounded).
// At most three are said.
func ratioNotes(its []Iteration, runmode string) []string {
	var notes []string
	for _, it := range its {
		if it.ReportedS == nil || it.ReferenceS == nil || it.Ratio == nil || *it.ReportedS <= 0 || it.ReferenceDerived {
			continue
		}
		copies := 1.0
		if runmode == "rate" {
			copies = float64(it.Copies)
		}
		want := copies * *it.ReferenceS / *it.ReportedS
		if math.Abs(*it.Ratio-want) > 1e-4*want {
			if len(notes) == 3 {
				return append(notes, "and more")
			}
			notes = append(notes, fmt.Sprintf("%s iteration %d: SPEC's ratio %g is not copies × reference / time (%g)", it.Name(), it.Number, *it.Ratio, round(want, meanPlaces)))
		}
	}
	return notes
}
