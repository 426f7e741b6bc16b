package procfs

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"corepin.dev/corepin/fsroot"
)

// SchedStat is /proc/PID/task/TID/schedstat: the scheduler's own account
// of a thread (Documentation/scheduler/sched-stats.rst, "/proc/<pid>/schedstat").
type SchedStat struct {
	// Run is the time spent on a CPU; Wait the time spent runnable,
	// waiting on a run queue for one. Wait is what a shared CPU costs.
	Run, Wait time.Duration
	// Timeslices counts the times the thread was given a CPU.
	Timeslices uint64
}

// ParseSchedStat reads the three numbers of a schedstat file.
func ParseSchedStat(data []byte) (SchedStat, error) {
	f := bytes.Fields(data)
	if len(f) != 3 {
		return SchedStat{}, fmt.Errorf("schedstat %q: want 3 numbers", clipped(data))
	}
	var v [3]uint64
	for i := range v {
		n, err := strconv.ParseUint(string(f[i]), 10, 64)
		if err != nil {
			return SchedStat{}, fmt.Errorf("schedstat %q: %w", clipped(data), err)
		}
		v[i] = n
	}
	if v[0] > 1<<62 || v[1] > 1<<62 {
		return SchedStat{}, fmt.Errorf("schedstat %q: a time beyond any run", clipped(data))
	}
	return SchedStat{Run: time.Duration(v[0]), Wait: time.Duration(v[1]), Timeslices: v[2]}, nil
}

// SchedDebug is the part of /proc/PID/task/TID/sched (a debugging file of
// CONFIG_SCHED_DEBUG kernels) corepin uses; a field the file lacks is
// -1.
type SchedDebug struct {
	// Migrations is se.nr_migrations: every move of the thread to another
	// CPU, however short-lived, which sampling undercounts.
	Migrations int64
	// Involuntary is nr_involuntary_switches: the times the thread was
	// taken off its CPU while it could still run.
	Involuntary int64
}

// ParseSchedDebug picks se.nr_migrations and nr_involuntary_switches out
// of a sched file's "key : value" lines. The first line names the thread
// and may hold anything, colons included.
func ParseSchedDebug(data []byte) (SchedDebug, error) {
	d := SchedDebug{Migrations: -1, Involuntary: -1}
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		key, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(bytes.TrimSpace(key)) {
		case "se.nr_migrations":
			dst = &d.Migrations
		case "nr_involuntary_switches":
			dst = &d.Involuntary
		default:
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || n < 0 {
			return d, fmt.Errorf("sched line %q: not a count", clipped(line))
		}
		*dst = n
	}
	if d.Migrations < 0 && d.Involuntary < 0 {
		return d, fmt.Errorf("sched file %q: no se.nr_migrations or nr_involuntary_switches", clipped(data))
	}
	return d, nil
}

// ReadSchedStat reads /proc/PID/task/TID/schedstat under root.
func ReadSchedStat(root fsroot.Root, pid, tid int) (SchedStat, error) {
	name := "/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/schedstat"
	data, err := root.ReadFile(name)
	if err != nil {
		return SchedStat{}, err
	}
	return ParseSchedStat(data)
}
