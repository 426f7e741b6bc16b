package page

import (
	"fmt"
	"math"
	"sort"

	"corepin.dev/corepin/internal/samples"
	"corepin.dev/corepin/results"
)

// sample is one row of a telemetry CSV.
type sample struct {
	t      float64
	cpu    int
	util   float64 // NaN when unknown
	freq   float64 // MHz; NaN when unknown
	source string
}

// readCSV reads a telemetry CSV written by corepin (samples.ReadCSV); a
// missing or damaged file gives no samples and a note, never a failed
// report.
func readCSV(dir, rel string) ([]sample, error) {
	if rel == "" {
		return nil, nil
	}
	// The page reads only what is inside the results folder, whatever
	// run.json says and wherever its links point (a folder may come from
	// anyone).
	f, err := results.OpenIn(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	read, _, err := samples.ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	out := make([]sample, 0, len(read))
	for _, s := range read {
		out = append(out, sample{t: s.T, cpu: s.CPU, util: orNaN(s.UtilPct), freq: orNaN(s.FreqMHz), source: s.FreqSource})
	}
	return out, nil
}

// orNaN is the value, or NaN for an unknown one.
func orNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// instant is all CPUs' samples at one time.
type instant struct {
	t    float64
	util map[int]float64
	freq map[int]float64
}

// instants groups samples by time, in order.
func instants(samples []sample) []instant {
	byT := map[float64]*instant{}
	var ts []float64
	for _, s := range samples {
		in, ok := byT[s.t]
		if !ok {
			in = &instant{t: s.t, util: map[int]float64{}, freq: map[int]float64{}}
			byT[s.t] = in
			ts = append(ts, s.t)
		}
		in.util[s.cpu] = s.util
		in.freq[s.cpu] = s.freq
	}
	sort.Float64s(ts)
	out := make([]instant, len(ts))
	for i, t := range ts {
		out[i] = *byT[t]
	}
	return out
}

// meanOf averages the known values of the given CPUs; NaN when none.
func meanOf(m map[int]float64, cpus []int) float64 {
	sum, n := 0.0, 0
	for _, c := range cpus {
		if v, ok := m[c]; ok && !math.IsNaN(v) {
			sum += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
