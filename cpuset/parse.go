package cpuset

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseError reports CPU-list or mask text that could not be read. It quotes
// the input so that a message names exactly what was wrong.
type ParseError struct {
	Input string // the whole text given
	Msg   string // what is wrong with it
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("invalid CPU list %q: %s", e.Input, e.Msg)
}

// Parse reads a kernel CPU list such as "0-3,8-11" or "5". Surrounding white
// space and a trailing newline are ignored, so a sysfs file's content can be
// passed as it is; the empty string is the empty set. Strided ranges
// ("0-6:2"), which the kernel accepts on input but never prints, are
// rejected.
func Parse(text string) (Set, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return Set{}, nil
	}
	var b builder
	for _, field := range strings.Split(s, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			return Set{}, &ParseError{Input: text, Msg: "empty element"}
		}
		lo, hi, isRange := strings.Cut(field, "-")
		first, err := parseCPU(lo)
		if err != nil {
			return Set{}, &ParseError{Input: text, Msg: err.Error()}
		}
		last := first
		if isRange {
			if last, err = parseCPU(hi); err != nil {
				return Set{}, &ParseError{Input: text, Msg: err.Error()}
			}
			if last < first {
				return Set{}, &ParseError{Input: text, Msg: fmt.Sprintf("reversed range %d-%d", first, last)}
			}
		}
		for c := first; c <= last; c++ {
			b.add(c)
		}
	}
	return b.set(), nil
}

// MustParse is Parse for constants in tests and examples; it panics on error.
func MustParse(text string) Set {
	s, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return s
}

func parseCPU(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("missing number")
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a CPU number", s)
	}
	if n > MaxCPU {
		return 0, fmt.Errorf("CPU %d is above the limit of %d", n, MaxCPU)
	}
	return int(n), nil
}

// ParseMask reads a kernel hex mask such as "ff,ffffffff" (the format of
// thread_siblings, core_siblings and node cpumap files): comma-separated
// 32-bit words, most significant first. An optional "0x" prefix is accepted.
func ParseMask(text string) (Set, error) {
	s := strings.TrimSpace(text)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if s == "" {
		return Set{}, &ParseError{Input: text, Msg: "empty mask"}
	}
	words := strings.Split(s, ",")
	if len(words)*32 > MaxCPU+32 {
		return Set{}, &ParseError{Input: text, Msg: "mask longer than the CPU limit"}
	}
	var b builder
	for i, w := range words {
		w = strings.TrimSpace(w)
		if w == "" || len(w) > 8 {
			return Set{}, &ParseError{Input: text, Msg: fmt.Sprintf("word %q is not 1 to 8 hex digits", w)}
		}
		v, err := strconv.ParseUint(w, 16, 32)
		if err != nil {
			return Set{}, &ParseError{Input: text, Msg: fmt.Sprintf("word %q is not hexadecimal", w)}
		}
		base := (len(words) - 1 - i) * 32
		for bit := 0; bit < 32; bit++ {
			if v&(1<<uint(bit)) != 0 {
				b.add(base + bit)
			}
		}
	}
	return b.set(), nil
}
