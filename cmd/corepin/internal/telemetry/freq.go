package telemetry

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
)

// Frequency sources, best first. The name travels with every value.
const (
	SourceAvgFreq     = "cpuinfo_avg_freq" // hardware average over a short window (recent kernels)
	SourceScalingCur  = "scaling_cur_freq" // the driver's view; APERF/MPERF-based on x86
	SourceCpuinfoCur  = "cpuinfo_cur_freq" // read from hardware; root only
	SourceProcCpuinfo = "proc_cpuinfo"     // "cpu MHz" of /proc/cpuinfo (x86): a rough value
	SourceNone        = "none"
)

var sysfsSources = []string{SourceAvgFreq, SourceScalingCur, SourceCpuinfoCur}

// readFreq returns a CPU's frequency in MHz and the source it came from,
// trying the sources in order. cpuinfoMHz holds the values of /proc/cpuinfo
// read once for this sample.
func readFreq(fs *files, root string, cpu int, cpuinfoMHz func() map[int]float64, first string) (float64, string) {
	dir := filepath.Join(root, "sys/devices/system/cpu", fmt.Sprintf("cpu%d", cpu), "cpufreq")
	sources := sysfsSources
	if first != "" {
		sources = []string{first} // the source this CPU used last time
	}
	for _, name := range sources {
		if name == SourceProcCpuinfo {
			break
		}
		data, err := fs.read(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		khz, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
		if err != nil || khz == 0 {
			continue // "<unknown>" on some drivers
		}
		return float64(khz) / 1000, name
	}
	if first == "" || first == SourceProcCpuinfo {
		if mhz, ok := cpuinfoMHz()[cpu]; ok {
			return mhz, SourceProcCpuinfo
		}
	}
	if first != "" {
		return readFreq(fs, root, cpu, cpuinfoMHz, "") // it vanished: look again
	}
	return 0, SourceNone
}

// readCpuinfoMHz reads "cpu MHz" per processor from /proc/cpuinfo (as
// internal/procfs reads it); only x86 prints it.
func readCpuinfoMHz(root string) map[int]float64 {
	info, err := procfs.ReadCPUInfo(fsroot.Root(root))
	if err != nil {
		return nil
	}
	out := map[int]float64{}
	for cpu := range info {
		mhz, _ := info.Value(cpu, "cpu MHz")
		if v, err := strconv.ParseFloat(mhz, 64); err == nil && v > 0 {
			out[cpu] = v
		}
	}
	return out
}

// thermalZone is one /sys/class/thermal/thermal_zoneN.
type thermalZone struct {
	name, typ, path string
}

func findThermalZones(root string) []thermalZone {
	matches, _ := filepath.Glob(filepath.Join(root, "sys/class/thermal/thermal_zone*"))
	var zones []thermalZone
	for _, m := range matches {
		typ, _ := fsroot.ReadFile(filepath.Join(m, "type"))
		zones = append(zones, thermalZone{name: filepath.Base(m), typ: strings.TrimSpace(string(typ)), path: filepath.Join(m, "temp")})
	}
	return zones
}

// readThrottles reads a CPU's thermal throttle counter (x86
// thermal_throttle/core_throttle_count), or -1 where there is none.
func readThrottles(root string, cpu int) int64 {
	data, err := fsroot.ReadFile(filepath.Join(root, "sys/devices/system/cpu", fmt.Sprintf("cpu%d", cpu), "thermal_throttle/core_throttle_count"))
	if err != nil {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return -1
	}
	return n
}
