package evidence_test

import (
	"encoding/json"
	"fmt"

	"corepin.dev/corepin/results/evidence"
)

// A scheduling report, as corepin exec --report writes it and run.json
// keeps it for every run, read back with these types alone: where the
// thread was asked to go, what the kernel read back, whether the rule
// accepted it, and what the command did. A program that reads reports
// links this package and nothing of the launcher.
func Example() {
	report := []byte(`{
	  "tid": 4242,
	  "target": {"mode": "exact", "cpu": 3, "cpus": [3]},
	  "readback": {"cpus": [3], "cpu": 3, "policy": "other", "nice": -5,
	               "exact_at_readback": true, "in_target_group": true},
	  "accept": {"rule": "exact", "ok": true},
	  "command": ["./bench", "--size", "large"],
	  "start": "fork",
	  "child": {"pid": 4243, "exit_code": 0, "wall_s": 1.25, "user_s": 1.2, "sys_s": 0.01, "started": true}
	}`)
	var s evidence.Scheduling
	if err := json.Unmarshal(report, &s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("asked:", s.Target.Mode, "CPU", s.Target.CPU)
	fmt.Println("read back:", s.Readback.CPUs, "on CPU", s.Readback.CPU, s.Readback.PolicyText())
	fmt.Println("accepted:", s.Accept.OK, "by the", s.Accept.Rule, "rule")
	fmt.Println("ran:", s.Command, "started by", s.Start, "exit", *s.Child.ExitCode, "in", s.Child.WallS, "s")
	// Output:
	// asked: exact CPU 3
	// read back: 3 on CPU 3 other nice -5
	// accepted: true by the exact rule
	// ran: [./bench --size large] started by fork exit 0 in 1.25 s
}
