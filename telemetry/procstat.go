package telemetry

import (
	"fmt"
	"strconv"
	"strings"
)

// cpuTimes are one CPU's counters from /proc/stat, in clock ticks.
type cpuTimes struct {
	busy, total uint64
}

// parseProcStat reads the per-CPU lines ("cpuN user nice system idle iowait
// irq softirq steal ...") of /proc/stat. Busy time is user + nice + system +
// irq + softirq + steal; idle time is idle + iowait (guest time is already
// counted in user). A malformed CPU line is skipped and reported, so that
// one bad line costs one CPU's sample, not the run.
func parseProcStat(data string) (map[int]cpuTimes, []string) {
	out := map[int]cpuTimes{}
	var bad []string
	for _, line := range strings.Split(data, "\n") {
		if !strings.HasPrefix(line, "cpu") || strings.HasPrefix(line, "cpu ") {
			continue
		}
		fields := strings.Fields(line)
		cpu, err := strconv.Atoi(strings.TrimPrefix(fields[0], "cpu"))
		if err != nil || cpu < 0 || len(fields) < 5 {
			bad = append(bad, clip(line))
			continue
		}
		var v [8]uint64
		ok := true
		for i := 0; i < 8 && i+1 < len(fields); i++ {
			if v[i], err = strconv.ParseUint(fields[i+1], 10, 64); err != nil {
				ok = false
				break
			}
		}
		if !ok {
			bad = append(bad, clip(line))
			continue
		}
		user, nice, system, idle, iowait, irq, softirq, steal := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		busy := user + nice + system + irq + softirq + steal
		out[cpu] = cpuTimes{busy: busy, total: busy + idle + iowait}
	}
	return out, bad
}

// utilisation is the busy share between two readings, in percent; ok is
// false when the counters did not advance or went backwards (a CPU that
// was unplugged and came back).
func utilisation(prev, cur cpuTimes) (float64, bool) {
	if cur.total <= prev.total || cur.busy < prev.busy {
		return 0, false
	}
	pct := 100 * float64(cur.busy-prev.busy) / float64(cur.total-prev.total)
	return min(pct, 100), true
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return fmt.Sprintf("%q", s)
}
