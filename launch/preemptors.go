package launch

import (
	"cmp"
	"slices"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/oncpu"
	"corepin.dev/corepin/results/evidence"
)

// topPreemptors groups the account's threads on target by process, leaves
// out the work's own (ours), and keeps the MaxPreemptors that took the
// most time; below a tenth of a millisecond a process is not named.
func topPreemptors(a oncpu.Account, target cpuset.Set, ours func(pid, tid int) bool) []Preemptor {
	byPID := map[int]*Preemptor{}
	for _, t := range a.Tasks {
		if !target.Contains(t.CPU) || ours(t.PID, t.TID) {
			continue
		}
		p := byPID[t.PID]
		if p == nil {
			p = &Preemptor{PID: t.PID, Comm: t.Comm}
			byPID[t.PID] = p
		}
		if t.TID == t.PID {
			p.Comm = t.Comm // the process's own name, where its main thread ran
		}
		p.OnCPUS += t.OnCPU.Seconds()
	}
	out := []Preemptor{}
	for _, p := range byPID {
		if p.OnCPUS >= (100 * time.Microsecond).Seconds() {
			out = append(out, *p)
		}
	}
	slices.SortFunc(out, func(a, b Preemptor) int {
		return cmp.Or(cmp.Compare(b.OnCPUS, a.OnCPUS), cmp.Compare(a.PID, b.PID))
	})
	if len(out) > MaxPreemptors {
		out = out[:MaxPreemptors]
	}
	return out
}

// PreemptorsText says them in a line: "kworker/1:2 (41) 19.0 ms, sshd
// (802) 4.1 ms".
func PreemptorsText(ps []Preemptor) string { return evidence.PreemptorsText(ps) }
