package system

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
)

// lockHolder returns the PID of the process that holds a flock on the
// file fd is open on, from /proc/locks, or 0 when none is listed there.
// /proc/locks is the live kernel's, whatever the machine's root: the lock
// is a live one. A line is "1: FLOCK  ADVISORY  WRITE 1234 08:01:56789 0
// EOF", with the device in hex; lines of waiters have "->" after the
// number.
//
// /proc/locks names the process that took the lock, which may have ended
// since: a flock belongs to the open file, and a child that inherited it
// holds the lock on. Then the holder is a process that has the lock file
// open now, and taker is the one /proc/locks names (0 when it is the
// holder itself).
func lockHolder(fd int) (holder, taker int) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, 0
	}
	data, err := fsroot.Host.ReadFile("/proc/locks")
	if err != nil {
		return 0, 0
	}
	pid := parseLocks(string(data), fmt.Sprintf("%02x:%02x:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), st.Ino))
	if pid == 0 || opens(pid, st) {
		return pid, 0
	}
	pids, _ := procfs.PIDs(fsroot.Host)
	for _, p := range pids {
		if p != os.Getpid() && opens(p, st) {
			return p, pid
		}
	}
	return pid, 0
}

// opens says whether process pid has the file st describes open.
func opens(pid int, st unix.Stat_t) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		var fst unix.Stat_t
		if unix.Stat(dir+"/"+e.Name(), &fst) == nil && fst.Dev == st.Dev && fst.Ino == st.Ino {
			return true
		}
	}
	return false
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
