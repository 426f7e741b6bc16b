package procfs

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"corepin.dev/corepin/fsroot"
)

// UserHZ is the unit of /proc/stat's counters. The kernel fixes USER_HZ
// at 100 on every architecture Go supports (sysconf(_SC_CLK_TCK)), so a
// tick is 10 ms.
const UserHZ = 100

// Tick is one USER_HZ tick: the resolution of every /proc/stat figure.
const Tick = time.Second / UserHZ

// CPUTimes are one CPU's counters from /proc/stat ("cpuN user nice system
// idle iowait irq softirq steal ..."), in ticks.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
}

// Busy is the time the CPU was not idle: user + nice + system + irq +
// softirq + steal (guest time is already counted in user).
func (t CPUTimes) Busy() uint64 {
	return t.User + t.Nice + t.System + t.IRQ + t.SoftIRQ + t.Steal
}

// Tasks is the time tasks of this machine ran on the CPU: Busy without
// the hypervisor's steal and without interrupts.
func (t CPUTimes) Tasks() uint64 { return t.User + t.Nice + t.System }

// Total is every tick of the CPU: Busy plus idle and iowait.
func (t CPUTimes) Total() uint64 { return t.Busy() + t.Idle + t.IOWait }

// ParseStat reads the per-CPU lines of /proc/stat. A malformed CPU line
// is skipped and returned in bad, so that one bad line costs one CPU, not
// the reading. Older kernels have fewer columns; the missing ones are 0.
func ParseStat(data []byte) (cpus map[int]CPUTimes, bad []string) {
	cpus = map[int]CPUTimes{}
	for line := range strings.SplitSeq(string(data), "\n") {
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
		for i := 0; i < len(v) && i+1 < len(fields); i++ {
			if v[i], err = strconv.ParseUint(fields[i+1], 10, 64); err != nil {
				ok = false
				break
			}
		}
		if !ok {
			bad = append(bad, clip(line))
			continue
		}
		cpus[cpu] = CPUTimes{User: v[0], Nice: v[1], System: v[2], Idle: v[3], IOWait: v[4], IRQ: v[5], SoftIRQ: v[6], Steal: v[7]}
	}
	return cpus, bad
}

// ReadStat reads /proc/stat's per-CPU counters under root.
func ReadStat(root fsroot.Root) (map[int]CPUTimes, error) {
	data, err := root.ReadFile("/proc/stat")
	if err != nil {
		return nil, err
	}
	cpus, bad := ParseStat(data)
	if len(cpus) == 0 {
		return nil, fmt.Errorf("%s: no per-CPU line", root.Path("proc/stat"))
	}
	if len(bad) > 0 {
		return cpus, fmt.Errorf("%s: malformed line %s", root.Path("proc/stat"), bad[0])
	}
	return cpus, nil
}

// clip shortens a line for a message.
func clip(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// ParseBootTime reads the btime line of /proc/stat: when the system
// booted, in whole seconds.
func ParseBootTime(data []byte) (time.Time, error) {
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || s < 0 {
				return time.Time{}, fmt.Errorf("/proc/stat: btime %s", clip(v))
			}
			return time.Unix(s, 0), nil
		}
	}
	return time.Time{}, fmt.Errorf("/proc/stat: no btime line")
}

// BootTime reads when the system under root booted, from /proc/stat.
func BootTime(root fsroot.Root) (time.Time, error) {
	data, err := root.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	return ParseBootTime(data)
}

// Started is when a task that started at start (clock ticks since boot)
// began, given the boot time.
func Started(boot time.Time, start uint64) time.Time {
	return boot.Add(time.Duration(start) * Tick)
}
