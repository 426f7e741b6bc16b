package topology

import (
	"cmp"
	"math"
	"slices"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results/evidence"
)

// assignIDs gives every CPU machine-unique core and cluster ids, numbered by
// the first CPU of each distinct sibling set and cluster set (clusters,
// as the reader found them).
func (t *Topology) assignIDs(clusters map[int]cpuset.Set) {
	cores := map[string]int{}
	clusterIDs := map[string]int{}
	for i := range t.CPUs {
		c := &t.CPUs[i]
		if !c.Siblings.IsEmpty() {
			c.Core = idFor(cores, c.Siblings)
		}
		if cl := clusters[c.ID]; !cl.IsEmpty() {
			c.Cluster = idFor(clusterIDs, cl)
		}
	}
}

func idFor(ids map[string]int, s cpuset.Set) *int {
	key := s.String()
	id, ok := ids[key]
	if !ok {
		id = len(ids)
		ids[key] = id
	}
	return &id
}

// deriveCapacity fills in a relative capacity from the maximum frequency
// (fastest = 1024) on machines whose kernel exports no cpu_capacity, so that
// every later step compares one number.
func (t *Topology) deriveCapacity() {
	var fastest float64
	for _, c := range t.CPUs {
		if c.Capacity != nil {
			return // the kernel's own numbers win; never mix the two
		}
		if c.MaxMHz != nil {
			fastest = max(fastest, *c.MaxMHz)
		}
	}
	if fastest == 0 {
		return
	}
	for i := range t.CPUs {
		c := &t.CPUs[i]
		if c.MaxMHz != nil {
			capacity := int(math.Round(1024 * *c.MaxMHz / fastest))
			c.Capacity, c.CapacityDerived = &capacity, true
		}
	}
}

// group sorts the online CPUs into performance classes, fastest first: by
// capacity, then by maximum frequency, with the hybrid kind breaking ties
// (performance before efficiency). CPUs about which nothing is known form
// one class.
func (t *Topology) group() {
	type key struct {
		capacity int // -1 when unknown
		mhz      float64
		kind     string
	}
	members := map[key][]int{}
	var keys []key
	for _, c := range t.CPUs {
		if !c.Online {
			continue
		}
		k := key{capacity: -1, kind: c.Kind}
		if c.Capacity != nil {
			k.capacity = *c.Capacity
		}
		if c.MaxMHz != nil && !c.CapacityDerived {
			k.mhz = *c.MaxMHz
		}
		if _, ok := members[k]; !ok {
			keys = append(keys, k)
		}
		members[k] = append(members[k], c.ID)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(
			cmp.Compare(b.capacity, a.capacity),
			cmp.Compare(b.mhz, a.mhz),
			cmp.Compare(kindRank(a.kind), kindRank(b.kind)),
		)
	})
	t.Groups = nil
	for rank, k := range keys {
		g := evidence.Group{Rank: rank, CPUs: cpuset.Of(members[k]...), Kind: k.kind}
		cores := map[int]bool{}
		for _, id := range members[k] {
			c := t.CPU(id)
			if c.Core != nil {
				cores[*c.Core] = true
			}
			if c.MaxMHz != nil && (g.MaxMHz == nil || *c.MaxMHz > *g.MaxMHz) {
				g.MaxMHz = c.MaxMHz
			}
			g.Capacity, g.CapacityDerived = c.Capacity, c.CapacityDerived
		}
		g.Cores = len(cores)
		t.Groups = append(t.Groups, g)
	}
	t.inferKinds()
	t.findLost()
}

// findLost gathers the offline CPUs whose capacity (which the kernel keeps
// exporting for them) matches no online group into classes, fastest
// first: what a machine that lost its big cluster to hotplug no longer has.
func (t *Topology) findLost() {
	online := map[int]bool{}
	for _, g := range t.Groups {
		if g.Capacity != nil {
			online[*g.Capacity] = true
		}
	}
	members := map[int][]int{}
	var caps []int
	for _, c := range t.CPUs {
		if c.Online || c.Capacity == nil || c.CapacityDerived || online[*c.Capacity] {
			continue
		}
		if _, ok := members[*c.Capacity]; !ok {
			caps = append(caps, *c.Capacity)
		}
		members[*c.Capacity] = append(members[*c.Capacity], c.ID)
	}
	slices.SortFunc(caps, func(a, b int) int { return cmp.Compare(b, a) })
	t.Lost = nil
	for rank, capacity := range caps {
		capacity := capacity
		t.Lost = append(t.Lost, evidence.Group{Rank: rank, CPUs: cpuset.Of(members[capacity]...), Capacity: &capacity})
	}
}

func kindRank(kind string) int {
	switch kind {
	case KindPerformance:
		return 0
	case KindBalanced:
		return 1
	case KindEfficiency:
		return 2
	}
	return 1
}

// inferKinds names the classes of a heterogeneous machine that has no PMU
// kinds: the fastest class is performance, the slowest efficiency, and any
// in between balanced. A homogeneous machine keeps no kind at all.
func (t *Topology) inferKinds() {
	if len(t.Groups) < 2 {
		return
	}
	first, last := t.Groups[0], t.Groups[len(t.Groups)-1]
	if first.Kind != "" && last.Kind != "" && first.Kind != last.Kind {
		t.Heterogeneous = true // the hardware's own PMUs say so
		return
	}
	if first.Capacity == nil || last.Capacity == nil || *last.Capacity == 0 {
		return
	}
	t.Heterogeneous = float64(*first.Capacity) >= 1.5*float64(*last.Capacity)
	if !t.Heterogeneous {
		return
	}
	for i := range t.Groups {
		g := &t.Groups[i]
		if g.Kind != "" {
			return // the PMU said it; keep what the hardware says
		}
		kind := KindBalanced
		switch i {
		case 0:
			kind = KindPerformance
		case len(t.Groups) - 1:
			kind = KindEfficiency
		}
		g.Kind = kind
		for _, id := range g.CPUs.CPUs() {
			c := t.CPU(id)
			c.Kind, c.KindSource = kind, "capacity"
		}
	}
}
