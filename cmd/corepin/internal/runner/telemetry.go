package runner

import (
	"corepin.dev/corepin/cmd/corepin/internal/telemetry"
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results"
)

// SummarizeTelemetry condenses the samples of the target CPUs as a run's
// record keeps them (corepin import spec's iterations too).
func SummarizeTelemetry(s *telemetry.Series, target cpuset.Set) results.TelemetryStats {
	return summarizeTelemetry(s, target)
}

// summarizeTelemetry condenses the samples of the target CPUs.
func summarizeTelemetry(s *telemetry.Series, target cpuset.Set) results.TelemetryStats {
	st := results.TelemetryStats{Started: s.Started, FreqSource: telemetry.SourceNone}
	for _, n := range s.Notes {
		// The rough-frequency note is said once, beside the chart.
		if n.Kind != telemetry.NoteRoughFrequency {
			st.Notes = append(st.Notes, n.Text)
		}
	}
	var fSum, uSum float64
	var fN, uN int
	for _, smp := range s.Samples {
		if !target.Contains(smp.CPU) {
			continue
		}
		st.Samples++
		if smp.FreqMHz != nil {
			f := *smp.FreqMHz
			st.FreqSource = smp.FreqSource
			if st.FreqMinMHz == nil || f < *st.FreqMinMHz {
				st.FreqMinMHz = &f
			}
			if st.FreqMaxMHz == nil || f > *st.FreqMaxMHz {
				st.FreqMaxMHz = &f
			}
			fSum += f
			fN++
		}
		if smp.UtilPct != nil {
			uSum += *smp.UtilPct
			uN++
		}
	}
	if fN > 0 {
		m := fSum / float64(fN)
		st.FreqMeanMHz = &m
	}
	if uN > 0 {
		m := uSum / float64(uN)
		st.UtilMeanPct = &m
	}
	return st
}
