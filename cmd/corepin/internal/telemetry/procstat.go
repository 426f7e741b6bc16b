package telemetry

import "corepin.dev/corepin/internal/procfs"

// utilisation is the busy share between two readings of /proc/stat, in
// percent; ok is false when the counters did not advance or went
// backwards (a CPU that was unplugged and came back).
func utilisation(prev, cur procfs.CPUTimes) (float64, bool) {
	if cur.Total() <= prev.Total() || cur.Busy() < prev.Busy() {
		return 0, false
	}
	pct := 100 * float64(cur.Busy()-prev.Busy()) / float64(cur.Total()-prev.Total())
	return min(pct, 100), true
}
