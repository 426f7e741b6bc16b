package launch

import (
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/oncpu"
	"corepin.dev/corepin/results/evidence"
)

// ran is the tracer's account as the judge reads it: each thread's time
// on each CPU.
func ran(a oncpu.Account) []judge.Ran {
	out := make([]judge.Ran, len(a.Tasks))
	for i, t := range a.Tasks {
		out[i] = judge.Ran{PID: t.PID, TID: t.TID, CPU: t.CPU, Comm: t.Comm, OnCPU: t.OnCPU}
	}
	return out
}

// PreemptorsText says them in a line: "kworker/1:2 (41) 19.0 ms, sshd
// (802) 4.1 ms".
func PreemptorsText(ps []Preemptor) string { return evidence.PreemptorsText(ps) }
