package watch

import "corepin.dev/corepin/internal/procfs"

// TaskStat is the part of /proc/PID/task/TID/stat the watcher uses.
type TaskStat = procfs.TaskStat

// clockTick is USER_HZ.
const clockTick = procfs.UserHZ

// ParseTaskStat reads a stat line (see procfs.ParseTaskStat).
func ParseTaskStat(data []byte) (TaskStat, error) { return procfs.ParseTaskStat(data) }
