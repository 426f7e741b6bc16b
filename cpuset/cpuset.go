// Package cpuset holds the one CPU-list type corepin uses everywhere: for
// sysfs lists such as "0-3,8-11", for hex masks such as "ff,ffffffff", for
// command-line flags, for Cpus_allowed_list and for reports.
//
// A Set is a value: operations return new sets and never change their
// operands, so a Set can be shared freely between goroutines.
package cpuset

import (
	"encoding/json"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// MaxCPU bounds the CPU numbers a Set accepts. Linux's NR_CPUS tops out at
// 8192 today; the bound is far above that and exists only so that a garbage
// number such as "99999999999" is an error instead of a huge allocation.
const MaxCPU = 1 << 16

// Set is an immutable set of CPU numbers. The zero value is the empty set.
type Set struct {
	words []uint64 // bit i of words[i/64] is CPU i; no trailing zero words
}

// Of returns the set of the given CPUs. It panics on a negative CPU or one
// above MaxCPU, which are programming errors; use Parse for outside text.
func Of(cpus ...int) Set {
	var b builder
	for _, c := range cpus {
		if c < 0 || c > MaxCPU {
			panic("cpuset: CPU out of range: " + strconv.Itoa(c))
		}
		b.add(c)
	}
	return b.set()
}

// Range returns the set {lo, lo+1, ..., hi}; it is empty when hi < lo.
func Range(lo, hi int) Set {
	var b builder
	for c := lo; c <= hi; c++ {
		b.add(c)
	}
	return b.set()
}

// Contains reports whether cpu is in s.
func (s Set) Contains(cpu int) bool {
	if cpu < 0 || cpu/64 >= len(s.words) {
		return false
	}
	return s.words[cpu/64]&(1<<(uint(cpu)%64)) != 0
}

// Len returns the number of CPUs in s.
func (s Set) Len() int {
	n := 0
	for _, w := range s.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// IsEmpty reports whether s has no CPU.
func (s Set) IsEmpty() bool { return len(s.words) == 0 }

// CPUs returns the CPUs of s in increasing order.
func (s Set) CPUs() []int {
	out := make([]int, 0, s.Len())
	for i, w := range s.words {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, i*64+b)
			w &^= 1 << uint(b)
		}
	}
	return out
}

// First returns the lowest CPU of s, or -1 when s is empty.
func (s Set) First() int {
	for i, w := range s.words {
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// Last returns the highest CPU of s, or -1 when s is empty.
func (s Set) Last() int {
	if len(s.words) == 0 {
		return -1
	}
	i := len(s.words) - 1
	return i*64 + 63 - bits.LeadingZeros64(s.words[i])
}

// Equal reports whether s and t hold the same CPUs.
func (s Set) Equal(t Set) bool { return slices.Equal(s.words, t.words) }

// Union returns s ∪ t.
func (s Set) Union(t Set) Set {
	long, short := s.words, t.words
	if len(short) > len(long) {
		long, short = short, long
	}
	out := slices.Clone(long)
	for i, w := range short {
		out[i] |= w
	}
	return trim(out)
}

// Intersect returns s ∩ t.
func (s Set) Intersect(t Set) Set {
	n := min(len(s.words), len(t.words))
	out := make([]uint64, n)
	for i := range n {
		out[i] = s.words[i] & t.words[i]
	}
	return trim(out)
}

// Difference returns the CPUs of s that are not in t.
func (s Set) Difference(t Set) Set {
	out := slices.Clone(s.words)
	for i := range min(len(out), len(t.words)) {
		out[i] &^= t.words[i]
	}
	return trim(out)
}

// IsSubsetOf reports whether every CPU of s is in t.
func (s Set) IsSubsetOf(t Set) bool { return s.Difference(t).IsEmpty() }

// String formats s as a kernel CPU list, "0-3,8-11"; the empty set is "".
func (s Set) String() string {
	var sb strings.Builder
	cpus := s.CPUs()
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			sb.WriteByte('-')
			sb.WriteString(strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return sb.String()
}

// Mask formats s as a kernel hex mask, comma-separated 32-bit words with the
// highest word first ("ff,ffffffff"); the empty set is "0".
func (s Set) Mask() string {
	if s.IsEmpty() {
		return "0"
	}
	nwords := (s.Last())/32 + 1
	parts := make([]string, 0, nwords)
	for i := nwords - 1; i >= 0; i-- {
		w := uint32(s.words[i/2] >> (32 * uint(i%2)))
		if len(parts) == 0 {
			parts = append(parts, strconv.FormatUint(uint64(w), 16))
		} else {
			parts = append(parts, leftPad(strconv.FormatUint(uint64(w), 16), 8))
		}
	}
	return strings.Join(parts, ",")
}

// MarshalJSON writes s as an array of CPU numbers, the form reports use.
func (s Set) MarshalJSON() ([]byte, error) { return json.Marshal(s.CPUs()) }

// UnmarshalJSON reads an array of CPU numbers or a CPU-list string.
func (s *Set) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err == nil {
		p, err := Parse(text)
		if err != nil {
			return err
		}
		*s = p
		return nil
	}
	var cpus []int
	if err := json.Unmarshal(data, &cpus); err != nil {
		return err
	}
	var b builder
	for _, c := range cpus {
		if c < 0 || c > MaxCPU {
			return &ParseError{Input: string(data), Msg: "CPU " + strconv.Itoa(c) + " out of range"}
		}
		b.add(c)
	}
	*s = b.set()
	return nil
}

func leftPad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

func trim(words []uint64) Set {
	for len(words) > 0 && words[len(words)-1] == 0 {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return Set{}
	}
	return Set{words: words}
}

// builder accumulates CPUs before they become an immutable Set.
type builder struct{ words []uint64 }

func (b *builder) add(cpu int) {
	for cpu/64 >= len(b.words) {
		b.words = append(b.words, 0)
	}
	b.words[cpu/64] |= 1 << (uint(cpu) % 64)
}

func (b *builder) set() Set { return trim(b.words) }
