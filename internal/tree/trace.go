package tree

import (
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/account"
	"corepin.dev/corepin/internal/oncpu"
	"corepin.dev/corepin/results/evidence"
)

// Trace is the on-CPU tracer's account of the target around a window of
// work: its snapshots at the start and at the end; err says why there is
// none. A nil Trace, or one of no tracer, says nothing.
type Trace struct {
	tracer        *oncpu.Tracer
	before, after oncpu.Account
	err           error
}

// StartTrace snapshots the tracer, if any, before the work. The snapshot
// comes before the busy reading: it reads the run time of the task on
// each target CPU, which brings the kernel's account of it up to date
// (the cpuacct figures of a running task lag up to a tick), so that the
// reading after it holds that task's time too.
func StartTrace(tracer *oncpu.Tracer) *Trace {
	t := &Trace{tracer: tracer}
	if tracer != nil {
		t.before, t.err = tracer.Snapshot()
	}
	return t
}

// End snapshots the tracer, if any, after the work, before the last busy
// reading.
func (t *Trace) End() {
	if t != nil && t.tracer != nil && t.err == nil {
		t.after, t.err = t.tracer.Snapshot()
	}
}

// Preemptors names who else took time on the target between the
// snapshots, the work's own (ours) aside, or says why it cannot (""
// without a tracer).
func (t *Trace) Preemptors(target cpuset.Set, ours func(pid, tid int) bool) ([]evidence.Preemptor, string) {
	if t == nil || t.tracer == nil {
		return nil, ""
	}
	if t.err != nil {
		return nil, t.err.Error()
	}
	return account.Preemptors(ran(t.after.Since(t.before)), target, ours), ""
}

// Switches is who ran on the target between the busy readings from and
// to, slice by slice, the work's where ours says so. nil without the
// tracer.
func (t *Trace) Switches(from, to time.Duration, ours func(pid, tid int) bool) ([]evidence.Slice, *evidence.Switches) {
	if t == nil || t.tracer == nil || t.err != nil {
		return nil, nil
	}
	return switches(t.tracer, t.before, t.after, from, to, ours)
}

// ran is the tracer's account as the judge reads it: each thread's time
// on each CPU.
func ran(a oncpu.Account) []account.Ran {
	out := make([]account.Ran, len(a.Tasks))
	for i, task := range a.Tasks {
		out[i] = account.Ran{PID: task.PID, TID: task.TID, CPU: task.CPU, Comm: task.Comm, OnCPU: task.OnCPU}
	}
	return out
}

// switches reads who ran on the target between the tracer's two snapshots,
// slice by slice, each slice the work's where ours says so: the file's
// slices and what they add up to. The snapshots are taken just outside the
// two readings of the target's busy time, from and to (CLOCK_MONOTONIC, as
// the tracer's): the slices are cut to the readings' window, the others'
// time's own, and their times are counted from its start.
func switches(tr *oncpu.Tracer, before, after oncpu.Account, from, to time.Duration, ours func(pid, tid int) bool) ([]evidence.Slice, *evidence.Switches) {
	sl, lost, err := tr.Slices(before, after)
	if err != nil {
		return nil, &evidence.Switches{Error: err.Error()}
	}
	out := make([]evidence.Slice, 0, len(sl))
	sw := &evidence.Switches{Lost: lost}
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
func slice(s oncpu.Slice, base time.Duration, work bool) evidence.Slice {
	return evidence.Slice{Start: (s.Start - base).Seconds(), End: (s.End - base).Seconds(),
		CPU: s.CPU, PID: s.PID, TID: s.TID, OnCPUS: s.OnCPU.Seconds(), Work: work, Comm: s.Comm}
}
