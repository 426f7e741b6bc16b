package procfs

import (
	"slices"
	"strconv"
	"strings"

	"corepin.dev/corepin/fsroot"
)

// Field is one "key : value" line of /proc/cpuinfo, both trimmed.
type Field struct{ Key, Value string }

// CPUInfo is /proc/cpuinfo: each processor's fields in the kernel's
// order, keyed by the number of its "processor" line. What the file says
// of a processor differs by architecture: "model name" and "cpu MHz" on
// x86, "cpu" on PowerPC and SPARC, "Model Name" on LoongArch, the
// implementer and part numbers on ARM.
type CPUInfo map[int][]Field

// Value is the processor's first non-empty value under any of keys, in
// the file's order, and whether there is one.
func (c CPUInfo) Value(cpu int, keys ...string) (string, bool) {
	for _, f := range c[cpu] {
		if f.Value != "" && slices.Contains(keys, f.Key) {
			return f.Value, true
		}
	}
	return "", false
}

// ParseCPUInfo reads /proc/cpuinfo's text. The fields before the first
// "processor" line are processor 0's: a one-CPU ARM kernel prints none.
// A line without a colon is no field; a "processor" line whose value is
// not a number changes nothing.
func ParseCPUInfo(data []byte) CPUInfo {
	out := CPUInfo{}
	cur := 0
	for line := range strings.Lines(string(data)) {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if key == "processor" {
			if n, err := strconv.Atoi(val); err == nil {
				cur = n
			}
			continue
		}
		out[cur] = append(out[cur], Field{key, val})
	}
	return out
}

// ReadCPUInfo reads /proc/cpuinfo under root. Its error is the reading's
// (*fs.PathError, whose Op says whether the file could be opened).
func ReadCPUInfo(root fsroot.Root) (CPUInfo, error) {
	data, err := root.ReadFile("/proc/cpuinfo")
	if err != nil {
		return nil, err
	}
	return ParseCPUInfo(data), nil
}
