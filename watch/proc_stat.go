package watch

import (
	"bytes"
	"fmt"
	"strconv"
)

// TaskStat is the part of /proc/PID/task/TID/stat the watcher uses.
type TaskStat struct {
	Comm  string
	State byte
	PPid  int
	PGrp  int // the process group
	// UTime and STime are in clock ticks (USER_HZ, 100 on every Linux
	// architecture's user ABI).
	UTime, STime uint64
	// StartTime is when the thread started, in clock ticks since boot: with
	// the TID it identifies a thread, since TIDs are reused.
	StartTime uint64
	Processor int // the CPU it last ran on
}

// clockTick is USER_HZ.
const clockTick = 100

// CPUTicks is user plus system time.
func (s TaskStat) CPUTicks() uint64 { return s.UTime + s.STime }

// ParseTaskStat reads a stat line. The name sits between the first "(" and
// the last ")", and may itself hold spaces and parentheses.
func ParseTaskStat(data []byte) (TaskStat, error) {
	var s TaskStat
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return s, fmt.Errorf("stat line %q: no (comm)", clip(data))
	}
	s.Comm = string(data[open+1 : end])
	fields := bytes.Fields(data[end+1:])
	// fields[0] is field 3 (state); field N is fields[N-3].
	if len(fields) < 37 {
		return s, fmt.Errorf("stat line %q: %d fields after the name, want at least 37", clip(data), len(fields))
	}
	if len(fields[0]) != 1 {
		return s, fmt.Errorf("stat line %q: state %q", clip(data), fields[0])
	}
	s.State = fields[0][0]
	var err error
	num := func(field int) uint64 {
		if err != nil {
			return 0
		}
		var v uint64
		v, err = strconv.ParseUint(string(fields[field-3]), 10, 64)
		if err != nil {
			err = fmt.Errorf("stat line %q: field %d: %w", clip(data), field, err)
		}
		return v
	}
	ppid, _ := strconv.Atoi(string(fields[4-3]))
	s.PPid = ppid
	s.PGrp, _ = strconv.Atoi(string(fields[5-3]))
	s.UTime = num(14)
	s.STime = num(15)
	s.StartTime = num(22)
	s.Processor = int(num(39))
	return s, err
}

func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
