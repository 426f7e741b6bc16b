package runner

import (
	"time"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/session"
)

// LongRun is the length above which a run's ladder tries nice -20 before
// any realtime step (session.Ladder.NiceFirst), unless RealtimeFirst.
const LongRun = time.Second

// request is the request for one run of b: the run's own, with the ladder
// tried nice -20 first when realtime is allowed and the run is expected to
// last longer than LongRun.
func request(cfg Config, b bench) session.Request {
	req := cfg.Request
	if b.command != nil && b.command.CPUs == "group" {
		// Work of several threads (a multi-core run) gets the target's
		// performance group, as --mode soft gives every run.
		req.Mode = evidence.Soft
		if req.Group.IsEmpty() {
			req.Group = cfg.Target.SoftCPUs
		}
	}
	if !req.AllowRealtime || cfg.RealtimeFirst || b.expectS <= LongRun.Seconds() {
		return req
	}
	req.Ladder = req.Ladder.NiceFirst()
	return req
}

// longestRun is the longest finished run so far of each benchmark,
// kept as the runs come in: scanning every earlier run before each new
// one would make a run's cost grow with the runs before it.
type longestRun []float64

// add counts a finished run of benchmark i.
func (l longestRun) add(i int, r *results.RunRecord) {
	if !r.Started.IsZero() && r.Error == "" {
		l[i] = max(l[i], r.WallS)
	}
}

// expectedSeconds is how long the next run of a benchmark is expected to
// last: its longest finished run so far, else its reference time, else,
// for a suite command (SPEC-like runs of minutes), longer than LongRun.
func expectedSeconds(b bench, longest float64) float64 {
	switch {
	case longest > 0:
		return longest
	case b.workload != nil:
		return 0 // a built-in's reference is per size; its first run tells
	case b.command != nil && b.command.ReferenceSeconds > 0:
		return b.command.ReferenceSeconds
	case b.command != nil:
		return 2 * LongRun.Seconds()
	}
	return 0
}
