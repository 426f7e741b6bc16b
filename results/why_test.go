package results

import (
	"testing"

	"corepin.dev/corepin/results/evidence"
)

func TestWhyInvalid(t *testing.T) {
	b := Benchmark{Valid: true}
	if got := b.WhyInvalid(); got != "" {
		t.Errorf("valid: %q", got)
	}
	b = Benchmark{Runs: []RunRecord{
		{Index: 0, Warmup: true, Error: "warm-up failed"},
		{Index: 1, Valid: true},
		{Index: 2, Checks: []evidence.Outcome{{What: "stdout", Passed: false, Detail: "line 3: 101.0 vs 100.0"}}},
		{Index: 3, Error: "killed by SIGKILL"},
	}}
	if got := b.WhyInvalid(); got != "run 2: stdout failed: line 3: 101.0 vs 100.0" {
		t.Errorf("%q", got)
	}
	if got := (&Benchmark{}).WhyInvalid(); got != "no counted run finished" {
		t.Errorf("%q", got)
	}
}
