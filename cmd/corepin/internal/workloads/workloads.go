// Package workloads holds corepin's built-in single-core benchmarks: Go
// code that mirrors the kinds of work in SPEC CPU and Geekbench (recursion,
// compression, a fluid stencil, a graph kernel, a game-tree search, JSON,
// hashing). Each one checks its own answer, so a fast wrong result is never
// a score, and each has a reference time so that ratio = reference /
// measured.
//
// Reference times were measured with corepin run on the reference machine:
// a 2-vCPU AMD EPYC KVM guest, Linux 6.18, Go 1.26, one run pinned with the
// default ladder. A ratio of 1.0 means "as fast as that machine".
package workloads

import (
	"fmt"
	"maps"
	"time"
)

// Size picks the problem size.
type Size string

const (
	Full  Size = "full"
	Quick Size = "quick" // small enough that the whole suite runs in seconds
)

// Workload is one built-in benchmark.
type Workload struct {
	Name        string
	Description string
	// Reference is the time in seconds on the reference machine, per size.
	Reference map[Size]float64
	run       func(Size) (Result, error)
}

// New makes a workload of run, for a program (or a test) that brings its
// own: Run times it and checks nothing more than run says.
func New(name, description string, reference map[Size]float64, run func(Size) (Result, error)) Workload {
	return Workload{Name: name, Description: description, Reference: maps.Clone(reference), run: run}
}

// Result is what a workload computed and whether it was right.
type Result struct {
	Seconds float64 `json:"seconds"` // the timed part only
	Summary string  `json:"summary"` // what was computed, for the record
	Valid   bool    `json:"valid"`
	Why     string  `json:"why,omitempty"` // why it is not valid
}

// Run runs the workload once at the given size and times it.
func (w Workload) Run(size Size) (Result, error) {
	if size != Full && size != Quick {
		return Result{}, fmt.Errorf("unknown size %q (want full or quick)", size)
	}
	start := time.Now()
	r, err := w.run(size)
	r.Seconds = time.Since(start).Seconds()
	return r, err
}

// All returns the built-in workloads in suite order. Each call returns
// new copies: changing one (its reference times, say) changes nothing for
// anyone else.
func All() []Workload {
	all := []Workload{builtinFib, builtinCompress, builtinLBM, builtinGraph, builtinGameTree, builtinJSON, builtinSHA256}
	for i := range all {
		all[i].Reference = maps.Clone(all[i].Reference)
	}
	return all
}

// ByName finds a built-in workload.
func ByName(name string) (Workload, bool) {
	for _, w := range All() {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

func check(ok bool, summary, why string) (Result, error) {
	if ok {
		return Result{Summary: summary, Valid: true}, nil
	}
	return Result{Summary: summary, Why: why}, nil
}

// rng is a small deterministic generator (xorshift64*), so that every
// machine computes exactly the same inputs.
type rng uint64

func (r *rng) next() uint64 {
	x := uint64(*r)
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*r = rng(x)
	return x * 0x2545F4914F6CDD1D
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }
