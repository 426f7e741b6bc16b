package launch

import "corepin.dev/corepin/results/evidence"

// PreemptorsText says them in a line: "kworker/1:2 (41) 19.0 ms, sshd
// (802) 4.1 ms".
func PreemptorsText(ps []evidence.Preemptor) string { return evidence.PreemptorsText(ps) }
