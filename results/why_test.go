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

// The benchmark's warning names the run that made it invalid and why,
// not every reason a run can fail; an imported SPEC iteration by its
// number.
func TestInvalidWarningSaysWhy(t *testing.T) {
	b := Benchmark{Name: "505.mcf_r.base", PlannedRuns: 2, Runs: []RunRecord{
		{Index: 0, WallS: 1, Valid: true},
		{Index: 1, WallS: 1, Error: "invalid by corepin's evidence: workload 0, copy 0: the target CPU was shared", Spec: &SpecIteration{Iteration: 4}},
	}}
	b.Summarize()
	want := "iteration 4: invalid by corepin's evidence: workload 0, copy 0: the target CPU was shared: the benchmark is invalid"
	if ws := WarningTexts(b.Warnings); len(ws) == 0 || ws[0] != want {
		t.Errorf("warnings %q, want %q first", ws, want)
	}
}
