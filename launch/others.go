package launch

import (
	"corepin.dev/corepin/internal/busy"
)

// Where a target's busy time comes from (Others.Source).
const (
	BusyCpuacct  = busy.Cpuacct
	BusyProcStat = busy.ProcStat
)
