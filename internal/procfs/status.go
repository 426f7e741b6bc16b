package procfs

import (
	"fmt"
	"strconv"
	"strings"

	"corepin.dev/corepin/fsroot"
)

// Status is the part of /proc/PID/status corepin reads.
type Status struct {
	Name string
	// Tgid is the process a thread belongs to; Pid the thread itself.
	Tgid, Pid, PPid int
	// CPUsAllowed is Cpus_allowed_list, the task's CPU mask as a list
	// ("0-3,8"), as the kernel wrote it.
	CPUsAllowed string
}

// ParseStatus reads the "Key:\tvalue" lines of a status file. Name holds
// the command name with the kernel's escapes ("\n" for a newline), so
// every line is one field. A file without a Name line is no status file.
func ParseStatus(data []byte) (Status, error) {
	var st Status
	named := false
	for line := range strings.SplitSeq(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		var err error
		switch k {
		case "Name":
			st.Name, named = v, true
		case "Tgid":
			st.Tgid, err = strconv.Atoi(v)
		case "Pid":
			st.Pid, err = strconv.Atoi(v)
		case "PPid":
			st.PPid, err = strconv.Atoi(v)
		case "Cpus_allowed_list":
			st.CPUsAllowed = v
		}
		if err != nil {
			return st, fmt.Errorf("status line %q: %w", clipped([]byte(line)), err)
		}
	}
	if !named {
		return st, fmt.Errorf("status %q: no Name line", clipped(data))
	}
	return st, nil
}

// ReadStatus reads /proc/PID/status under root (a thread's TID names it
// too).
func ReadStatus(root fsroot.Root, pid int) (Status, error) {
	name := "/proc/" + strconv.Itoa(pid) + "/status"
	data, err := root.ReadFile(name)
	if err != nil {
		return Status{}, err
	}
	st, err := ParseStatus(data)
	if err != nil {
		return st, fmt.Errorf("%s: %w", root.Path(name), err)
	}
	return st, nil
}
