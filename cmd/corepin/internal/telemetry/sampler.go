// Package telemetry samples every CPU's utilisation and frequency at a
// fixed period while a benchmark runs (100 ms around a built-in's run, a
// second around a suite's), raw: nothing is smoothed, resampled or
// filled in. Each value names the source it came from, a CPU that could not
// be read is a gap rather than a zero, and the sampler's own thread keeps
// off the CPUs it is told to avoid (the benchmark's target).
package telemetry

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/observer"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/internal/samples"
)

// MinPeriod is the shortest sampling period.
const MinPeriod = 50 * time.Millisecond

// Options configure a sampler.
type Options struct {
	Root   fsroot.Root   // folder holding sys/ and proc/; the live system by default
	Period time.Duration // 1 s by default
	CPUs   cpuset.Set    // CPUs to record; all CPUs in /proc/stat when empty
	Avoid  cpuset.Set    // CPUs the sampler's thread must not run on
	// Thermal also records thermal zones' temperatures.
	Thermal bool
}

// Series is what a sampler recorded.
type Series struct {
	Started time.Time        `json:"started"` // wall-clock time of t = 0
	Period  float64          `json:"period_s"`
	Samples []samples.Sample `json:"samples"`
	Thermal []Thermal        `json:"thermal,omitempty"`
	Markers []Marker         `json:"markers,omitempty"`
	// Sources lists the frequency sources seen, so that a chart can say
	// "no frequency source" instead of drawing zeros.
	Sources []string `json:"freq_sources"`
	Notes   []Note   `json:"notes,omitempty"`
	// SamplerCPUs is where the sampler's thread was allowed to run.
	SamplerCPUs cpuset.Set `json:"sampler_cpus"`
}

// Thermal is one zone's temperature at one instant.
type Thermal struct {
	T     float64 `json:"t_s"`
	Zone  string  `json:"zone"`
	Type  string  `json:"type"`
	TempC float64 `json:"temp_c"`
}

// Marker is a named instant, such as the start of a benchmark.
type Marker struct {
	T    float64 `json:"t_s"`
	Name string  `json:"name"`
}

// Sampler records a Series until stopped.
type Sampler struct {
	opts  Options
	start time.Time
	loop  *observer.Loop

	mu     sync.Mutex
	series Series
	prev   map[int]procfs.CPUTimes
	zones  []thermalZone
	gaps   map[int]bool
	// src is each CPU's frequency source at the last sample; every
	// reprobeEvery samples the whole order is tried again, so a better
	// source that appears is taken up without probing for absent files
	// on every sample.
	src      map[int]string
	nsamples int
	throttle bool // the machine has thermal_throttle counters
	files    *files
}

const reprobeEvery = 10

// Start begins sampling until ctx ends or Stop is called. It takes the
// first reading at once, as the base for utilisation; the first samples
// come one period later.
func Start(ctx context.Context, opts Options) (*Sampler, error) {
	s, err := newSampler(opts)
	if err != nil {
		return nil, err
	}
	s.loop, err = observer.Start(ctx, opts.Period, opts.Avoid, observer.Funcs{
		Tick: s.sample,
		Last: func() {
			s.sample() // the end of the run is a sample too
			s.files.closeAll()
		},
	})
	if err != nil {
		return nil, fmt.Errorf("placing the sampler: %w", err)
	}
	s.mu.Lock()
	s.series.SamplerCPUs = s.loop.CPUs
	if note := s.loop.SharedNote("sampler"); note != "" {
		s.note(NoteShared, note)
	}
	s.mu.Unlock()
	return s, nil
}

// newSampler checks the options and takes the baseline reading.
func newSampler(opts Options) (*Sampler, error) {
	if opts.Root == "" {
		opts.Root = fsroot.Host
	}
	if opts.Period == 0 {
		opts.Period = time.Second
	}
	if opts.Period < MinPeriod {
		return nil, fmt.Errorf("telemetry period %v is shorter than the minimum %v", opts.Period, MinPeriod)
	}
	s := &Sampler{opts: opts, start: time.Now(), gaps: map[int]bool{}, src: map[int]string{}, files: newFiles(opts.Root.String())}
	s.series = Series{Started: s.start, Period: opts.Period.Seconds(), Samples: []samples.Sample{}}
	if opts.Thermal {
		s.zones = findThermalZones(opts.Root.String())
	}
	if err := s.baseline(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sampler) baseline() error {
	data, err := fsroot.ReadFile(filepath.Join(s.opts.Root.String(), "proc/stat"))
	if err != nil {
		return fmt.Errorf("starting telemetry: %w", err)
	}
	prev, bad := procfs.ParseStat(data)
	if len(prev) == 0 {
		return fmt.Errorf("starting telemetry: no per-CPU line in %s", filepath.Join(s.opts.Root.String(), "proc/stat"))
	}
	s.prev = prev
	for cpu := range prev {
		s.throttle = s.throttle || readThrottles(s.opts.Root.String(), cpu) >= 0
	}
	for _, b := range bad {
		s.note(NoteMalformed, "malformed /proc/stat line skipped: "+b)
	}
	return nil
}

// Mark records a named instant.
func (s *Sampler) Mark(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.series.Markers = append(s.series.Markers, Marker{T: time.Since(s.start).Seconds(), Name: name})
}

// Stop ends sampling and returns the series.
func (s *Sampler) Stop() *Series {
	s.loop.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.series
	return &out
}

// Snapshot returns the series so far, for a live display.
func (s *Sampler) Snapshot() Series {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.series
	out.Samples = append([]samples.Sample(nil), s.series.Samples...)
	return out
}

func (s *Sampler) note(kind NoteKind, text string) {
	n := Note{Kind: kind, Text: text}
	for _, have := range s.series.Notes {
		if have == n {
			return
		}
	}
	s.series.Notes = append(s.series.Notes, n)
}

// sample takes one reading of every CPU of interest.
func (s *Sampler) sample() {
	t := time.Since(s.start).Seconds()
	data, err := s.files.read(filepath.Join(s.opts.Root.String(), "proc/stat"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.note(NoteUnreadable, fmt.Sprintf("t=%.1fs: reading /proc/stat: %v", t, err))
		return
	}
	cur, bad := procfs.ParseStat(data)
	for _, b := range bad {
		s.note(NoteMalformed, "malformed /proc/stat line skipped: "+b)
	}
	cpus := s.opts.CPUs
	if cpus.IsEmpty() {
		ids := make([]int, 0, len(cur))
		for id := range cur {
			ids = append(ids, id)
		}
		cpus = cpuset.Of(ids...)
	}
	var cpuinfo map[int]float64
	cpuinfoMHz := func() map[int]float64 {
		if cpuinfo == nil {
			cpuinfo = readCpuinfoMHz(s.opts.Root.String())
		}
		return cpuinfo
	}
	s.nsamples++
	if s.nsamples%reprobeEvery == 0 {
		clear(s.src)
	}
	for _, cpu := range cpus.CPUs() {
		smp := samples.Sample{T: t, CPU: cpu}
		p, hadPrev := s.prev[cpu]
		c, hasCur := cur[cpu]
		if hadPrev && hasCur {
			if u, ok := utilisation(p, c); ok {
				smp.UtilPct = &u
			}
		}
		if !hasCur && !s.gaps[cpu] {
			s.note(NoteGap, fmt.Sprintf("t=%.1fs: CPU %d left /proc/stat (offline): a gap", t, cpu))
		}
		s.gaps[cpu] = !hasCur
		if mhz, src := readFreq(s.files, s.opts.Root.String(), cpu, cpuinfoMHz, s.src[cpu]); src != SourceNone {
			smp.FreqMHz, smp.FreqSource = &mhz, src
			s.src[cpu] = src
			s.addSource(src)
		} else {
			smp.FreqSource = SourceNone
			if hasCur && len(s.series.Sources) > 0 {
				s.note(NoteGap, fmt.Sprintf("t=%.1fs: CPU %d has no frequency reading: a gap", t, cpu))
			}
		}
		if s.throttle {
			if n := readThrottles(s.opts.Root.String(), cpu); n >= 0 {
				smp.Throttles = &n
			}
		}
		s.series.Samples = append(s.series.Samples, smp)
	}
	s.prev = cur
	for _, z := range s.zones {
		data, err := fsroot.ReadFile(z.path)
		if err != nil {
			continue
		}
		milli, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err != nil {
			continue
		}
		s.series.Thermal = append(s.series.Thermal, Thermal{T: t, Zone: z.name, Type: z.typ, TempC: float64(milli) / 1000})
	}
}

func (s *Sampler) addSource(src string) {
	for _, have := range s.series.Sources {
		if have == src {
			return
		}
	}
	s.series.Sources = append(s.series.Sources, src)
	if src == SourceProcCpuinfo {
		s.note(NoteRoughFrequency, `frequency from "cpu MHz" of /proc/cpuinfo: a rough value (in a VM often the host's nominal clock)`)
	}
}
