package watch

import "corepin.dev/corepin/internal/procfs"

// ParseTaskStat reads a stat line (see procfs.ParseTaskStat).
func ParseTaskStat(data []byte) (procfs.TaskStat, error) { return procfs.ParseTaskStat(data) }
