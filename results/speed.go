package results

import (
	"fmt"
	"strings"
)

// SpeedWarn is how far below its best a speed probe may read before its
// run is said to have been on a slowed core: further than the probe's own
// noise on a quiet core (a few percent), nearer than the host's slowdowns
// on a shared cloud vCPU (a third to a half).
const SpeedWarn = 0.10

// OnCPUFull is the share of its time a probe must have had the CPU for a
// low rate to be the core's own speed rather than a wait.
const OnCPUFull = 0.90

// SetSpeed sets the run's speed figures against best, a rate in steps per
// second; a run without probes or a best keeps null figures.
func (r *RunRecord) SetSpeed(best float64) {
	r.SpeedBefore, r.SpeedAfter = nil, nil
	if best <= 0 {
		return
	}
	if p := r.ProbeBefore; p != nil {
		v := p.Rate / best
		r.SpeedBefore = &v
	}
	if p := r.ProbeAfter; p != nil {
		v := p.Rate / best
		r.SpeedAfter = &v
	}
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

// settleSpeed raises the benchmark's best rate to its fastest probe and
// sets every run's speed against it.
func (b *Benchmark) settleSpeed() {
	b.SpeedBestRate = bestRate(b.SpeedBestRate, b.Runs, b.DroppedRuns)
	for i := range b.Runs {
		b.Runs[i].SetSpeed(b.SpeedBestRate)
	}
	for i := range b.DroppedRuns {
		b.DroppedRuns[i].SetSpeed(b.SpeedBestRate)
	}
}

// Speed is the run's speed by its witness, the mean of its probes, and
// whether it has any.
func (r *RunRecord) Speed() (float64, bool) {
	switch {
	case r.SpeedBefore != nil && r.SpeedAfter != nil:
		return (*r.SpeedBefore + *r.SpeedAfter) / 2, true
	case r.SpeedBefore != nil:
		return *r.SpeedBefore, true
	case r.SpeedAfter != nil:
		return *r.SpeedAfter, true
	}
	return 0, false
}

// Slowed reports whether either probe of the run read more than
// SpeedWarn below the best.
func (r *RunRecord) Slowed() bool {
	return (r.SpeedBefore != nil && *r.SpeedBefore < 1-SpeedWarn) || (r.SpeedAfter != nil && *r.SpeedAfter < 1-SpeedWarn)
}

// FullSpeed reports whether the run has a witness and neither probe read
// below the threshold.
func (r *RunRecord) FullSpeed() bool {
	_, ok := r.Speed()
	return ok && !r.Slowed()
}

// SpeedText says what the witness saw of a slowed run and its cause: a
// probe that had the CPU all along ran on a slowed core; one that did not
// waited for it.
func (r *RunRecord) SpeedText() string {
	// The slower probe is the one that says the core was slowed.
	s, _ := r.Speed()
	for _, p := range []*float64{r.SpeedBefore, r.SpeedAfter} {
		if p != nil {
			s = min(s, *p)
		}
	}
	text := fmt.Sprintf("the target ran at %.2f of its best speed (probe before %s, after %s)", s, fraction(r.SpeedBefore), fraction(r.SpeedAfter))
	on := 1.0
	for _, p := range []*SpeedProbe{r.ProbeBefore, r.ProbeAfter} {
		if p != nil && p.OnCPU != nil {
			on = min(on, *p.OnCPU)
		}
	}
	if on >= OnCPUFull {
		text += ": the core was slowed from outside this machine's scheduler (a host neighbour, thermal or frequency)"
	} else {
		text += fmt.Sprintf(": the probe had the CPU for only %.0f%% of its time (others ran on the target, a CPU bandwidth limit held it, or the host took the time)", 100*on)
	}
	var facts []string
	if r.StealS != nil && *r.StealS > 0 {
		facts = append(facts, "steal "+FormatSeconds(*r.StealS))
	}
	// The frequency is a fact beside the speed only where cpufreq gives
	// it: /proc/cpuinfo's "cpu MHz" in a VM is often the host's nominal
	// clock, the same whatever the core did.
	if t := r.Telemetry; t.FreqMinMHz != nil && t.FreqMaxMHz != nil && t.FreqMeanMHz != nil && t.FreqSource != FreqSourceCpuinfo && t.FreqSource != FreqSourceNone {
		facts = append(facts, fmt.Sprintf("frequency %.0f–%.0f MHz, mean %.0f (%s)", *t.FreqMinMHz, *t.FreqMaxMHz, *t.FreqMeanMHz, t.FreqSource))
	}
	if len(facts) > 0 {
		text += "; " + strings.Join(facts, ", ")
	}
	return text
}

func fraction(v *float64) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprintf("%.2f", *v)
}
