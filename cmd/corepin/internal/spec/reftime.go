package spec

import (
	"errors"
	"fmt"
	"strings"
)

// A benchmark's reftime (benchspec/CPU/<benchmark>/data/<size>/reftime)
// holds the reference machine's time of each workload size, one line
// each: the size, its class and the seconds ("refrate ref 1616"; the
// harness's read_reftime).

// Reftime is one line of a reftime file.
type Reftime struct {
	Size, Class string
	Seconds     float64
}

// ParseReftime reads a reftime file.
func ParseReftime(data []byte) ([]Reftime, error) {
	if len(data) > 1<<20 {
		return nil, errors.New("larger than 1 MiB: not a reftime file")
	}
	var out []Reftime
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: %q: want SIZE CLASS SECONDS", i+1, clipText(line))
		}
		s, err := number(f[2])
		if err != nil || s == nil || *s <= 0 {
			return nil, fmt.Errorf("line %d: %q is not a reference time in seconds", i+1, clipText(f[2]))
		}
		out = append(out, Reftime{Size: f[0], Class: f[1], Seconds: *s})
	}
	if len(out) == 0 {
		return nil, errors.New("no reference time: not a reftime file")
	}
	return out, nil
}

// ReferenceFor returns the reference time of a size ("refrate"): the line of that
// size, else the only line there is.
func ReferenceFor(refs []Reftime, size string) (float64, bool) {
	for _, r := range refs {
		if r.Size == size {
			return r.Seconds, true
		}
	}
	if len(refs) == 1 {
		return refs[0].Seconds, true
	}
	return 0, false
}
