package procfs

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"

	"corepin.dev/corepin/fsroot"
)

// Process names one process (or thread) for as long as it lives: its PID
// and its start time in clock ticks since boot (/proc/PID/stat field
// 22). A PID alone may be another process's by the time it is looked at
// again, since the kernel reuses PIDs.
type Process struct {
	PID   int
	Start uint64
}

// Identify reads the identity of the process that has pid now.
func Identify(root fsroot.Root, pid int) (Process, error) {
	st, err := ReadTaskStat(root, pid)
	if err != nil {
		return Process{}, err
	}
	return Process{PID: pid, Start: st.StartTime}, nil
}

// Alive says whether p still runs: its PID names a task that started
// when p did. A zombie is still alive here, as its PID is still taken.
func (p Process) Alive(root fsroot.Root) bool {
	st, err := ReadTaskStat(root, p.PID)
	return err == nil && st.StartTime == p.Start
}

// Gone says whether p has certainly ended: its PID is free, or names a
// task that started at another time. An identity without a start time
// (0) is gone only when its PID is free, and one that cannot be read
// (another error than a missing file) is not known to be gone.
func (p Process) Gone(root fsroot.Root) bool {
	if p.PID <= 0 {
		return true
	}
	st, err := ReadTaskStat(root, p.PID)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && p.Start != 0 && st.StartTime != p.Start
}

// PIDs lists the processes under root's /proc.
func PIDs(root fsroot.Root) ([]int, error) {
	return numbered(root, "/proc")
}

// Tasks lists the threads of process pid, from /proc/PID/task.
func Tasks(root fsroot.Root, pid int) ([]int, error) {
	return numbered(root, "/proc/"+strconv.Itoa(pid)+"/task")
}

// Children lists the children of thread tid of process pid, from
// /proc/PID/task/TID/children: those that thread forked, or was given as
// a subreaper. The file is there where the kernel has
// CONFIG_PROC_CHILDREN; where it is not, the error says so.
func Children(root fsroot.Root, pid, tid int) ([]int, error) {
	data, err := root.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/children")
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(string(data))
	out := make([]int, 0, len(fields))
	for _, f := range fields {
		if c, err := strconv.Atoi(f); err == nil && c > 0 {
			out = append(out, c)
		}
	}
	return out, nil
}

// numbered lists the entries of a folder that are numbers.
func numbered(root fsroot.Root, dir string) ([]int, error) {
	entries, err := root.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		if id, err := strconv.Atoi(e.Name()); err == nil && id > 0 {
			out = append(out, id)
		}
	}
	return out, nil
}
