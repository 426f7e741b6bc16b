package procfs

import (
	"bytes"
	"fmt"
	"strconv"

	"corepin.dev/corepin/fsroot"
)

// TaskStat is the part of /proc/PID/stat (and /proc/PID/task/TID/stat)
// corepin reads.
type TaskStat struct {
	Comm  string
	State byte
	PPid  int
	PGrp  int // the process group
	// Flags are the task's PF_* flags (field 9).
	Flags uint64
	// UTime and STime are in clock ticks (USER_HZ).
	UTime, STime uint64
	// StartTime is when the task started, in clock ticks since boot: with
	// the PID it identifies a task, since PIDs are reused.
	StartTime uint64
	Processor int // the CPU it last ran on
}

// pfKthread is PF_KTHREAD (include/linux/sched.h): a kernel thread.
const pfKthread = 0x00200000

// CPUTicks is user plus system time.
func (s TaskStat) CPUTicks() uint64 { return s.UTime + s.STime }

// Kernel says whether the task is a kernel thread.
func (s TaskStat) Kernel() bool { return s.Flags&pfKthread != 0 }

// Dead says whether the task has ended and waits to be reaped (a zombie)
// or is being torn down.
func (s TaskStat) Dead() bool { return s.State == 'Z' || s.State == 'X' }

// ParseTaskStat reads a stat line. The name sits between the first "(" and
// the last ")", and may itself hold spaces and parentheses: the other
// fields are counted from the last ")".
func ParseTaskStat(data []byte) (TaskStat, error) {
	var s TaskStat
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return s, fmt.Errorf("stat line %q: no (comm)", clipped(data))
	}
	s.Comm = string(data[open+1 : end])
	fields := bytes.Fields(data[end+1:])
	// fields[0] is field 3 (state); field N is fields[N-3].
	if len(fields) < 37 {
		return s, fmt.Errorf("stat line %q: %d fields after the name, want at least 37", clipped(data), len(fields))
	}
	if len(fields[0]) != 1 {
		return s, fmt.Errorf("stat line %q: state %q", clipped(data), fields[0])
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
			err = fmt.Errorf("stat line %q: field %d: %w", clipped(data), field, err)
		}
		return v
	}
	ppid, _ := strconv.Atoi(string(fields[4-3]))
	s.PPid = ppid
	s.PGrp, _ = strconv.Atoi(string(fields[5-3]))
	s.Flags = num(9)
	s.UTime = num(14)
	s.STime = num(15)
	s.StartTime = num(22)
	s.Processor = int(num(39))
	return s, err
}

// ReadTaskStat reads /proc/PID/stat under root. A thread's TID names it
// there too, though /proc does not list it. An error from the file
// keeps the file's error (fs.ErrNotExist: no such task).
func ReadTaskStat(root fsroot.Root, pid int) (TaskStat, error) {
	return readTaskStat(root, "/proc/"+strconv.Itoa(pid)+"/stat")
}

// ReadThreadStat reads /proc/PID/task/TID/stat under root.
func ReadThreadStat(root fsroot.Root, pid, tid int) (TaskStat, error) {
	return readTaskStat(root, "/proc/"+strconv.Itoa(pid)+"/task/"+strconv.Itoa(tid)+"/stat")
}

func readTaskStat(root fsroot.Root, name string) (TaskStat, error) {
	data, err := root.ReadFile(name)
	if err != nil {
		return TaskStat{}, err
	}
	st, err := ParseTaskStat(data)
	if err != nil {
		return st, fmt.Errorf("%s: %w", root.Path(name), err)
	}
	return st, nil
}

// clipped shortens a file's text for a message.
func clipped(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
