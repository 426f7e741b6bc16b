package experiment

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/partition"
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/speed"
	"corepin.dev/corepin/topology"
)

// PartitionConfig is the partition experiment (after the task scheduling
// example of docs/experiments.md): a parallel loop of a few
// bit operations per 32-bit element of a large array, repeated with a
// barrier per iteration, under pinned static, static and dynamic
// partitioning on fast and slow cores.
type PartitionConfig struct {
	CPUs     cpuset.Set // one worker per CPU
	SlowCPUs cpuset.Set // emulated slow CPUs; empty: real kinds, or the upper half
	Slowdown int        // F: emulated slow CPUs run at 1/F
	// SlowBy is how slow CPUs are emulated: SlowByBandwidth, SlowByLoad,
	// or "" for bandwidth where the kernel has it and load elsewhere.
	SlowBy     string
	Chunks     []int
	Size       int // elements
	Iterations int
	Runs       int
	Topology   *topology.Topology
	Self       string // the corepin executable, for the competing processes (SlowByLoad)
}

// PartitionRow is one strategy's result.
type PartitionRow struct {
	Strategy string    `json:"strategy"` // pinned-static, static, dynamic
	Chunks   int       `json:"chunks"`   // 0 for the static ones
	MedianMs float64   `json:"median_ms"`
	RunsMs   []float64 `json:"runs_ms"`
	// VsIdeal is the median over rounds of this round's time over this
	// round's ideal: each round measures the single workers and every
	// strategy back to back, so the ratio holds when the machine's speed
	// drifts between rounds.
	VsIdeal float64 `json:"vs_ideal"`
	ratios  []float64
}

// PartitionResult is the experiment's outcome.
type PartitionResult struct {
	CPUs     cpuset.Set `json:"cpus"`
	FastCPUs cpuset.Set `json:"fast_cpus"`
	SlowCPUs cpuset.Set `json:"slow_cpus"`
	// Emulated says the slow CPUs are equal cores slowed to 1/Slowdown,
	// SlowBy says how (SlowByBandwidth with its quota and period, or
	// SlowByLoad); otherwise they are the machine's own efficiency cores.
	Emulated bool   `json:"emulated"`
	Slowdown int    `json:"slowdown,omitempty"`
	SlowBy   string `json:"slow_by,omitempty"`
	QuotaUS  int    `json:"quota_us,omitempty"`
	PeriodUS int    `json:"period_us,omitempty"`
	How      string `json:"how"`
	// SlowSpeed is the speed witness's rate on the first slow CPU over its
	// rate on the first fast one, median of the rounds (SlowSpeedRounds):
	// the speed the slow CPUs ran at, measured, not stated.
	SlowSpeed       *float64  `json:"slow_speed,omitempty"`
	SlowSpeedRounds []float64 `json:"slow_speed_rounds,omitempty"`
	Size            int       `json:"size"`
	Iterations      int       `json:"iterations"`
	Runs            int       `json:"runs"`
	// SingleMs is one worker alone on a fast CPU; IdealMs is the time a
	// perfect balance would take given the CPUs' speeds, as the single
	// workers measured them.
	SingleMs     float64        `json:"single_fast_ms"`
	SingleSlowMs float64        `json:"single_slow_ms"`
	IdealMs      float64        `json:"ideal_ms"`
	Rows         []PartitionRow `json:"rows"`
	BestDynamic  *PartitionRow  `json:"best_dynamic"`
	// PinnedOverBest is the median over rounds of pinned static's time
	// over the best dynamic strategy's time in the same round.
	PinnedOverBest float64 `json:"pinned_static_over_best_dynamic"`
	// IdealPinnedOverBest is what PinnedOverBest would be with both
	// strategies at their ideal, given the measured speeds: pinned static
	// gives every worker an equal share, so it ends when a slow CPU's
	// worker does, at SingleSlowMs over the workers; the best dynamic at
	// best ends at IdealMs.
	IdealPinnedOverBest float64 `json:"ideal_pinned_static_over_best_dynamic"`
	// PinnedOverBestVsIdeal is the median over rounds of the round's
	// pinned static / best dynamic over the ideal of that ratio for the
	// round's own speeds (its singles before and after it): 1 where both
	// strategies did as well against each other as the speeds allow. A
	// core whose speed drifts between rounds moves PinnedOverBest and its
	// ideal together, and this not at all.
	PinnedOverBestVsIdeal float64 `json:"pinned_over_best_vs_ideal,omitempty"`
	// Timelines holds the last run's chunks of each row, by row label.
	Timelines map[string][]partition.Chunk `json:"timelines"`
	// PublishedMs are the published times of each strategy on an Intel
	// Core i7-1260P with 2 P and 2 E cores (see publishedPartition).
	PublishedMs map[string]float64 `json:"published_i7_1260p_ms"`
	Notes       []string           `json:"notes"`
	// Interrupted says a signal ended the experiment early.
	Interrupted bool `json:"interrupted"`
}

// Label names a row: "pinned-static", "static", "dynamic/128".
func (r PartitionRow) Label() string {
	if r.Chunks > 0 {
		return fmt.Sprintf("%s/%d", r.Strategy, r.Chunks)
	}
	return r.Strategy
}

// RunPartition runs the sweep. A cancelled context ends it after the
// round in progress, with the rounds done so far and Interrupted set.
func RunPartition(ctx context.Context, cfg PartitionConfig) (*PartitionResult, error) {
	if cfg.CPUs.Len() < 2 {
		return nil, errors.New("the partition experiment needs at least two CPUs")
	}
	if cfg.Size < 1 || cfg.Iterations < 1 || cfg.Runs < 1 || len(cfg.Chunks) == 0 {
		return nil, errors.New("the partition experiment needs a size, iterations, runs and chunk counts of at least 1")
	}
	res := &PartitionResult{CPUs: cfg.CPUs, Size: cfg.Size, Iterations: cfg.Iterations, Runs: cfg.Runs,
		Timelines: map[string][]partition.Chunk{}, Notes: []string{},
		PublishedMs: publishedPartition()}
	if err := res.chooseSlow(cfg); err != nil {
		return nil, err
	}
	var slow *slowCPUs
	if res.Emulated {
		var err error
		if slow, err = startSlow(cfg, res); err != nil {
			return nil, err
		}
		defer func() {
			if err := slow.stop(); err != nil {
				res.Notes = append(res.Notes, fmt.Sprintf("removing the slow CPUs' emulation: %v", err))
			}
		}()
	}
	// A worker that the kernel keeps off its CPU (throttled by its quota,
	// or waiting behind the competing processes) keeps its P, which the Go
	// runtime cannot know; so does a pacer between its sleeps. A P for
	// each of them and one for the rest (the loop that starts the
	// iterations) keep the others from waiting for one.
	if procs, prev := cfg.CPUs.Len()+1+slow.pacerCount(), runtime.GOMAXPROCS(0); prev < procs {
		runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
	}
	fast1, slow1 := res.FastCPUs.First(), res.SlowCPUs.First()
	var probe speed.Probe
	if err := speed.On(cpuset.Of(fast1), func() { probe = speed.Calibrate(witnessProbe) }); err != nil {
		return nil, fmt.Errorf("calibrating the speed probe: %w", err)
	}
	data := make([]uint32, cfg.Size)
	for i := range data {
		data[i] = uint32(i)*2654435761 + 1
	}
	body := slow.body(func(lo, hi int) { bitOps(data[lo:hi]) })
	single := func(cpu int) (float64, error) {
		r, err := partition.Run(partition.Options{N: cfg.Size, CPUs: cpuset.Of(cpu), Pin: true, Strategy: partition.Static, Iterations: cfg.Iterations, Body: body, Context: ctx,
			Setup: slow.setup(cpuset.Of(cpu))})
		return ms(r.Elapsed), err
	}
	// One worker alone on a fast and on a slow CPU, measured before and
	// after every round like the strategies, so that the ideal is a median
	// too and each round is judged by the speeds around it; a round's
	// singles after it are the next round's before.
	singles := func() (f, s float64, err error) {
		if f, err = single(fast1); err != nil {
			return
		}
		s, err = single(slow1)
		return
	}
	var fastMs, slowMs, idealPOB []float64

	rows := []PartitionRow{{Strategy: "pinned-static"}, {Strategy: "static"}}
	for _, c := range cfg.Chunks {
		rows = append(rows, PartitionRow{Strategy: "dynamic", Chunks: c})
	}
	for _, c := range cfg.Chunks {
		rows = append(rows, PartitionRow{Strategy: "pinned-dynamic", Chunks: c})
	}
	// The first round is a warm-up, not recorded: it brings the array into
	// the caches, the workers' threads into being and the bandwidth limit
	// into its rhythm, and its speeds read low.
	f0, s0, err := singles()
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	for k := -1; k < cfg.Runs; k++ {
		if ctx.Err() != nil {
			break
		}
		witnessed, err := slow.witness(probe, fast1, slow1)
		if err != nil {
			return nil, fmt.Errorf("witnessing the slow CPUs' speed: %w", err)
		}
		round := make([]float64, len(rows))
		for _, i := range rand.Perm(len(rows)) {
			if ctx.Err() != nil {
				break // an unfinished round is not kept
			}
			r := &rows[i]
			opts := partition.Options{N: cfg.Size, CPUs: cfg.CPUs, Iterations: cfg.Iterations, Body: body, Strategy: partition.Static, Context: ctx,
				Setup: slow.setup(cfg.CPUs)}
			switch r.Strategy {
			case "pinned-static":
				opts.Pin = true
			case "dynamic":
				opts.Strategy, opts.Chunks = partition.Dynamic, r.Chunks
			case "pinned-dynamic":
				opts.Strategy, opts.Chunks, opts.Pin = partition.Dynamic, r.Chunks, true
			}
			out, err := partition.Run(opts)
			if ctx.Err() != nil {
				break // cut short: the round is not kept
			}
			if err != nil {
				return nil, err
			}
			round[i] = ms(out.Elapsed)
			res.Timelines[r.Label()] = out.Timeline
		}
		if ctx.Err() != nil {
			break
		}
		f1, s1, err := singles()
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			return nil, err
		}
		f, s := (f0+f1)/2, (s0+s1)/2
		f0, s0 = f1, s1
		if k < 0 {
			continue
		}
		ideal := res.ideal(f, s)
		fastMs, slowMs = append(fastMs, f), append(slowMs, s)
		idealPOB = append(idealPOB, s/float64(res.CPUs.Len())/ideal)
		res.SlowSpeedRounds = append(res.SlowSpeedRounds, witnessed)
		for i, t := range round {
			rows[i].RunsMs = append(rows[i].RunsMs, t)
			rows[i].ratios = append(rows[i].ratios, t/ideal)
		}
	}
	if ctx.Err() != nil {
		res.Interrupted = true
		res.Notes = append(res.Notes, fmt.Sprintf("interrupted after %d of %d rounds: only complete rounds are recorded", len(fastMs), cfg.Runs))
	}
	res.Rows = rows
	if len(fastMs) == 0 {
		return res, nil // not one round: nothing to summarise
	}
	res.SingleMs, res.SingleSlowMs = *medianPtr(fastMs), *medianPtr(slowMs)
	res.IdealMs = res.ideal(res.SingleMs, res.SingleSlowMs)
	res.IdealPinnedOverBest = res.SingleSlowMs / float64(res.CPUs.Len()) / res.IdealMs
	res.SlowSpeed = medianPtr(res.SlowSpeedRounds)
	for i := range rows {
		rows[i].MedianMs = *medianPtr(rows[i].RunsMs)
		rows[i].VsIdeal = *medianPtr(rows[i].ratios)
		if strings.HasSuffix(rows[i].Strategy, "dynamic") && (res.BestDynamic == nil || rows[i].MedianMs < res.BestDynamic.MedianMs) {
			best := rows[i]
			res.BestDynamic = &best
		}
	}
	res.Rows = rows
	var paired, vsIdeal []float64
	for _, r := range rows {
		if r.Label() == res.BestDynamic.Label() {
			for k := range r.RunsMs {
				paired = append(paired, rows[0].RunsMs[k]/r.RunsMs[k])
				vsIdeal = append(vsIdeal, paired[k]/idealPOB[k])
			}
		}
	}
	res.PinnedOverBest = *medianPtr(paired)
	res.PinnedOverBestVsIdeal = *medianPtr(vsIdeal)
	return res, nil
}

// ideal is the time a perfect balance takes, given one worker's time alone
// on a fast and on a slow CPU: every CPU works to the end, in proportion to
// its speed, as measured, also where the slow speed is emulated.
func (res *PartitionResult) ideal(fastMs, slowMs float64) float64 {
	return fastMs / (float64(res.FastCPUs.Len()) + float64(res.SlowCPUs.Len())*fastMs/slowMs)
}

// chooseSlow decides which CPUs are slow: those asked for (emulated), the
// machine's efficiency cores, or else the upper half of the CPUs
// (emulated).
func (res *PartitionResult) chooseSlow(cfg PartitionConfig) error {
	switch {
	case !cfg.SlowCPUs.IsEmpty():
		if !cfg.SlowCPUs.IsSubsetOf(cfg.CPUs) || cfg.SlowCPUs.Equal(cfg.CPUs) {
			return fmt.Errorf("the slow CPUs %s must be some, not all, of the CPUs %s", cfg.SlowCPUs, cfg.CPUs)
		}
		res.SlowCPUs, res.Emulated = cfg.SlowCPUs, true
		res.How = fmt.Sprintf("CPUs %s are slowed", cfg.SlowCPUs) // startSlow says how
	case cfg.Topology != nil && cfg.Topology.Heterogeneous:
		var slow []int
		for _, c := range cfg.CPUs.CPUs() {
			if g := cfg.Topology.GroupOf(c); g != nil && g.Rank > 0 {
				slow = append(slow, c)
			}
		}
		if len(slow) > 0 && len(slow) < cfg.CPUs.Len() {
			res.SlowCPUs = cpuset.Of(slow...)
			res.How = fmt.Sprintf("CPUs %s are this machine's slower cores; nothing is emulated", res.SlowCPUs)
			break
		}
		fallthrough
	default:
		cpus := cfg.CPUs.CPUs()
		res.SlowCPUs, res.Emulated = cpuset.Of(cpus[len(cpus)/2:]...), true
		res.How = fmt.Sprintf("no slow CPUs were named and the cores are equal, so the upper half, CPUs %s, is slowed", res.SlowCPUs)
	}
	if res.Emulated && cfg.Slowdown < 2 {
		return fmt.Errorf("--slowdown %d: emulating slow CPUs needs a slowdown of at least 2", cfg.Slowdown)
	}
	if cfg.SlowBy != "" && cfg.SlowBy != SlowByWork && cfg.SlowBy != SlowByBandwidth && cfg.SlowBy != SlowByLoad {
		return fmt.Errorf("--slow-by %q: want %s, %s or %s", cfg.SlowBy, SlowByWork, SlowByBandwidth, SlowByLoad)
	}
	if res.Emulated {
		res.Slowdown = cfg.Slowdown
	}
	res.FastCPUs = cfg.CPUs.Difference(res.SlowCPUs)
	return nil
}

// bitOps is the experiment's kernel: a few bit operations on every element.
func bitOps(a []uint32) {
	for i, x := range a {
		for range 4 {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
		}
		a[i] = x
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
