package system

import (
	"time"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

// GuardArg is the first argument of corepin's guard (launch's): a small
// process that every corepin command that changes state starts, whose
// command line is "corepin GuardArg PID START", naming the corepin it
// guards by PID and start time. A shield knows a running corepin by it.
const GuardArg = "__corepin-guard"

// shield is a running shield's state, for its report at the end.
type shield struct {
	root    fsroot.Root // where the threads' /proc is read
	start   time.Time
	tracked map[int]uint64 // unmovable TID -> its CPU time (ns) at the start
}

// finish completes the report: the unmovable threads' CPU time during the
// run.
func (s *shield) finish(r *evidence.ShieldReport) {
	if s == nil || r == nil {
		return
	}
	elapsed := time.Since(s.start)
	var busy uint64
	for tid, before := range s.tracked {
		if now, ok := threadRunNs(s.root, tid); ok && now >= before {
			busy += now - before
		}
	}
	r.DurationS = elapsed.Seconds()
	if elapsed > 0 {
		pct := 100 * float64(busy) / float64(elapsed.Nanoseconds())
		r.OutsideBusyPct = &pct
	}
}
