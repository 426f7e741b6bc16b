package launch

import (
	"time"

	"corepin.dev/corepin/oncpu"
	"corepin.dev/corepin/oncpu/timeline"
	"corepin.dev/corepin/results/evidence"
)

// Switches is who ran on the target during the run, slice by slice.
type Switches = evidence.Switches

// switches reads who ran on the target between the tracer's two snapshots,
// slice by slice, each slice the work's where ours says so: the file's
// slices and what they add up to. The snapshots are taken just outside the
// two readings of the target's busy time, from and to (CLOCK_MONOTONIC, as
// the tracer's): the slices are cut to the readings' window, the others'
// time's own, and their times are counted from its start.
func switches(tr *oncpu.Tracer, before, after oncpu.Account, from, to time.Duration, ours func(pid, tid int) bool) ([]timeline.Slice, *Switches) {
	sl, lost, err := tr.Slices(before, after)
	if err != nil {
		return nil, &Switches{Error: err.Error()}
	}
	out := make([]timeline.Slice, 0, len(sl))
	sw := &Switches{Lost: lost}
	for _, s := range sl {
		if s, ok := cut(s, from, to); ok {
			out = append(out, slice(s, from, ours(s.PID, s.TID)))
		}
	}
	sw.Slices = len(out)
	for _, ts := range out {
		if ts.Work {
			sw.WorkS += ts.OnCPUS
		} else {
			sw.OthersS += ts.OnCPUS
		}
	}
	return out, sw
}

// cut keeps the part of a slice between from and to, with its run time
// in proportion; ok is false when none of it is.
func cut(s oncpu.Slice, from, to time.Duration) (oncpu.Slice, bool) {
	start, end := max(s.Start, from), min(s.End, to)
	if end <= start {
		return s, false
	}
	if wall := s.End - s.Start; end-start < wall {
		s.OnCPU = time.Duration(float64(s.OnCPU) * float64(end-start) / float64(wall))
	}
	s.Start, s.End = start, end
	return s, true
}

// slice is the slice as the results folder keeps it, its times from base.
func slice(s oncpu.Slice, base time.Duration, work bool) timeline.Slice {
	return timeline.Slice{Start: (s.Start - base).Seconds(), End: (s.End - base).Seconds(),
		CPU: s.CPU, PID: s.PID, TID: s.TID, OnCPUS: s.OnCPU.Seconds(), Work: work, Comm: s.Comm}
}
