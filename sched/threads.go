package sched

import (
	"strconv"

	"corepin.dev/corepin/fsroot"
)

// OwnThreads lists the threads of this process, from /proc/self/task
// under root: what corepin changes about its own threads (their mask,
// their priority, the attributes a thread copied from a session's) it
// changes for each of them.
func OwnThreads(root fsroot.Root) []int {
	entries, err := root.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var tids []int
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids
}
