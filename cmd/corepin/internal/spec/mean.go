package spec

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

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

// meanOf is SPEC's mean of the iterations of one tuning keep admits, and the
// benchmarks it is of; nil when none may count.
func meanOf(its []Iteration, runmode, tune string, keep func(Iteration) bool) (*float64, []string) {
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
	logSum, benches := map[int]float64{}, map[int][]string{}
	for g, list := range valid {
		slices.SortStableFunc(list, func(a, b Iteration) int { return cmp.Compare(*a.ReportedS, *b.ReportedS) })
		ratio := *list[len(list)/2].Ratio
		if ratio <= 0 {
			continue
		}
		logSum[g.copies] += math.Log(ratio)
		benches[g.copies] = append(benches[g.copies], g.bench)
	}
	var best *float64
	var of []string
	for copies, names := range benches {
		m := round(math.Exp(logSum[copies]/float64(len(names))), meanPlaces)
		if best == nil || m > *best {
			best, of = &m, names
		}
	}
	slices.Sort(of)
	return best, of
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// means recomputes the run's base and peak means from its iterations, as
// SPEC does and over the iterations corepin's evidence vouches for, and
// says where SPEC's own differs from the recomputed one by more than its
// last place, and why an evidence mean is null.
func (im *Import) means(sr *results.SpecRun, vouched map[iterationKey]bool, joined bool) {
	its, mode := im.Result.Iterations, im.Result.Runmode
	var notes []string
	for _, m := range []struct {
		tune        string
		spec        *float64
		again, seen **float64
	}{{"base", sr.BaseMean, &sr.RecomputedBaseMean, &sr.EvidenceBaseMean}, {"peak", sr.PeakMean, &sr.RecomputedPeakMean, &sr.EvidencePeakMean}} {
		again, of := meanOf(its, mode, m.tune, func(Iteration) bool { return true })
		seen, note := evidenceMean(its, mode, m.tune, vouched, of, joined)
		*m.again, *m.seen = again, seen
		notes = append(notes, recomputedNote(m.tune, m.spec, again)...)
		if note != "" {
			notes = append(notes, note)
		}
	}
	notes = append(notes, ratioNotes(its, mode)...)
	sr.MeanNote = strings.Join(notes, "; ")
}

// evidenceMean is SPEC's mean over the iterations corepin's evidence
// vouches for, or nil, and why, unless every benchmark of the recomputed
// mean (of) keeps one: a mean of the benchmarks that happen to be left
// is another figure, not SPEC's.
func evidenceMean(its []Iteration, mode, tune string, vouched map[iterationKey]bool, of []string, joined bool) (*float64, string) {
	if len(of) == 0 {
		return nil, ""
	}
	if !joined {
		return nil, fmt.Sprintf("no %s mean by corepin's evidence: no report of corepin's was joined", tune)
	}
	seen, kept := meanOf(its, mode, tune, func(it Iteration) bool { return vouched[iterationKey{it.Name(), it.Number}] })
	var missing []string
	for _, b := range of {
		if !slices.Contains(kept, b) {
			missing = append(missing, b)
		}
	}
	if len(missing) == 0 {
		return seen, ""
	}
	return nil, fmt.Sprintf("no %s mean by corepin's evidence: %s kept no iteration that SPEC and corepin's evidence both hold valid",
		tune, strings.Join(missing, ", "))
}

// recomputedNote says where SPEC's mean and the recomputed one differ by
// more than SPEC's last place, or only one of them is.
func recomputedNote(tune string, spec, again *float64) []string {
	switch {
	case spec == nil && again == nil:
	case spec == nil:
		return []string{fmt.Sprintf("SPEC wrote no %s mean; recomputed from its selected iterations it is %g", tune, *again)}
	case again == nil:
		return []string{fmt.Sprintf("SPEC's %s mean is %g, but none of its iterations is valid to recompute it from", tune, *spec)}
	case math.Abs(*spec-*again) > 1.5*math.Pow(10, -meanPlaces):
		return []string{fmt.Sprintf("SPEC's %s mean %g differs from the one recomputed from its iterations, %g", tune, *spec, *again)}
	}
	return nil
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
