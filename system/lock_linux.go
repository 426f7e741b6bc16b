package system

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
)

// lockHolder returns the PID of the process that holds a flock on the
// file fd is open on, from /proc/locks, or 0 when none is listed there.
// /proc/locks is the live kernel's, whatever the machine's root: the lock
// is a live one. A line is "1: FLOCK  ADVISORY  WRITE 1234 08:01:56789 0
// EOF", with the device in hex; lines of waiters have "->" after the
// number.
func lockHolder(fd int) int {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0
	}
	data, err := fsroot.Host.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	return parseLocks(string(data), fmt.Sprintf("%02x:%02x:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), st.Ino))
}

func parseLocks(text, file string) int {
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] == "->" || f[1] != "FLOCK" || f[5] != file {
			continue
		}
		if pid, err := strconv.Atoi(f[4]); err == nil {
			return pid
		}
	}
	return 0
}
