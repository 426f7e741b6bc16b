package experiment

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/topology"
)

// The errors below name the command line's flags: the experiments'
// parameters are those of corepin experiment.

// ParseLevels is the levels a QoS experiment compares: every level,
// lowest first, for "all"; else low and high, which must differ.
func ParseLevels(levels, low, high string) ([]qos.Level, error) {
	switch levels {
	case "all":
		return qos.Levels(), nil
	case "":
	default:
		return nil, fmt.Errorf("--levels %q: the only value is all", levels)
	}
	lo, err1 := qos.Parse(low)
	hi, err2 := qos.Parse(high)
	if err := cmp.Or(err1, err2); err != nil {
		return nil, fmt.Errorf("--level-low/--level-high: %v", err)
	}
	if lo == hi {
		return nil, fmt.Errorf("--level-low and --level-high are both %s", lo)
	}
	return []qos.Level{lo, hi}, nil
}

// ParseWork reads the key thread's work, fib:N, and returns N.
func ParseWork(w string) (int, error) {
	name, n, ok := strings.Cut(w, ":")
	v, err := strconv.Atoi(n)
	if !ok || name != "fib" || err != nil || v < 1 || v > 50 {
		return 0, fmt.Errorf("--work %q: want fib:N with N from 1 to 50", w)
	}
	return v, nil
}

// Validate checks the counts of a QoS experiment.
func (c QoSConfig) Validate() error {
	if c.Runs < 1 || c.Load < 0 || c.Runs > 10000 || c.Load > 1000 {
		return fmt.Errorf("--runs must be 1 to 10000 and --load 0 to 1000")
	}
	return nil
}

// ParseChunks reads the chunk counts of dynamic partitioning, such as
// 4,16,128.
func ParseChunks(s string) ([]int, error) {
	var counts []int
	for _, c := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--chunks %q: want positive numbers such as 4,16,128", s)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

// Validate checks the sizes and counts of a partitioning experiment.
func (c PartitionConfig) Validate() error {
	switch {
	case c.Size < 1 || c.Size > 1<<30:
		return fmt.Errorf("--size %d: want 1 to %d elements", c.Size, 1<<30)
	case c.Iterations < 1 || c.Iterations > 1e6 || c.Runs < 1 || c.Runs > 10000:
		return fmt.Errorf("--iterations must be 1 to 1000000 and --runs 1 to 10000")
	case c.Slowdown < 1 || c.Slowdown > 64:
		return fmt.Errorf("--slowdown %d: want 1 to 64", c.Slowdown)
	}
	return nil
}

// QoSAsked is a QoS experiment as the command line asks for it; a quick
// one makes 3 runs of the smallest work from fib(30) to fib(34) that lasts
// long enough for the levels to act (see sizeFib), unless --work or
// --runs are given.
// Out is the folder the results also go to, "" for none.
type QoSAsked struct {
	Levels, Low, High, Work, Out string
	Load, Runs                   int
	NoLoad, Quick                bool
	WorkGiven, RunsGiven         bool
}

// Config is the experiment asked for on cpu, checked.
func (a QoSAsked) Config(cpu int) (QoSConfig, error) {
	lv, err := ParseLevels(a.Levels, a.Low, a.High)
	if err != nil {
		return QoSConfig{}, err
	}
	fibN, err := ParseWork(a.Work)
	if err != nil {
		return QoSConfig{}, err
	}
	runs := a.Runs
	size := false
	if a.Quick {
		size = !a.WorkGiven
		if !a.RunsGiven {
			runs = 3
		}
	}
	cfg := QoSConfig{CPU: cpu, Levels: lv, Load: a.Load, Fib: fibN, SizeFib: size, Runs: runs, NoLoad: a.NoLoad}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, checkOut(a.Out)
}

// checkOut checks, before the experiment, that its results can be
// written into the folder out ("" passes).
func checkOut(out string) error {
	if err := atomicfile.CheckFolder(out); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// PartitionAsked is a partitioning experiment as the command line asks
// for it; CPUs "" is every usable CPU, and a quick one has a 1M-element
// array and 7 runs, unless --size or --runs are given (fewer rounds left
// the ratio to the host's changes of the cores' speeds: 3 rounds came
// within 10% of the ideal in 6 of 9 runs here, 7 in four of four).
// Out is the folder the results also go to, "" for none.
type PartitionAsked struct {
	CPUs, SlowCPUs, SlowBy, Chunks, Out string
	Slowdown, Size, Iterations, Runs    int
	Quick, CPUsGiven                    bool
	SizeGiven, RunsGiven                bool
	SlowdownGiven, SlowByGiven          bool
}

// Config is the experiment asked for on the machine topo describes,
// checked.
func (a PartitionAsked) Config(topo *topology.Topology) (PartitionConfig, error) {
	set := topo.Usable()
	if a.CPUs != "" {
		var err error
		if set, err = cpuset.Parse(a.CPUs); err != nil {
			return PartitionConfig{}, fmt.Errorf("--cpus: %w", err)
		}
		if !set.IsSubsetOf(topo.Usable()) {
			return PartitionConfig{}, fmt.Errorf("--cpus %s: only CPUs %s are online and allowed", set, topo.Usable())
		}
	}
	slow, err := cpuset.Parse(a.SlowCPUs)
	if err != nil {
		return PartitionConfig{}, fmt.Errorf("--slow-cpus: %w", err)
	}
	counts, err := ParseChunks(a.Chunks)
	if err != nil {
		return PartitionConfig{}, err
	}
	size, runs := a.Size, a.Runs
	if a.Quick {
		if !a.SizeGiven {
			size = 1 << 20
		}
		if !a.RunsGiven {
			runs = 7
		}
	}
	cfg := PartitionConfig{CPUs: set, SlowCPUs: slow, Slowdown: a.Slowdown, SlowBy: a.SlowBy,
		Chunks: counts, Size: size, Iterations: a.Iterations, Runs: runs, Topology: topo}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	if a.CPUsGiven && set.IsEmpty() {
		return cfg, fmt.Errorf("--cpus: the list is empty")
	}
	return cfg, checkOut(a.Out)
}

// Unused says which of the flags given that slow the slow CPUs this
// machine did not use, and why: it has slow cores of its own (res.How).
func (a PartitionAsked) Unused(res *PartitionResult) []string {
	var notes []string
	if a.SlowdownGiven && !res.Emulated {
		notes = append(notes, fmt.Sprintf("--slowdown %d is not used: %s", a.Slowdown, res.How))
	}
	if a.SlowByGiven && !res.Emulated {
		notes = append(notes, fmt.Sprintf("--slow-by %s is not used: %s", a.SlowBy, res.How))
	}
	return notes
}
