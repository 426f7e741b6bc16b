package judge

import (
	"fmt"
	"strings"
	"testing"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

func sharedRecord() results.RunRecord {
	return results.RunRecord{Index: 1, Sharing: SharedInvalid, Error: sharedPrefix + "others took 21% of the target CPU's time"}
}

// Only a run whose one fault is a shared target is run again for it, at
// most MaxSharedReruns times; once one stayed shared through them, a
// later shared run is not re-run, and says why.
func TestRerunsShared(t *testing.T) {
	re := &Reruns{Left: 100}
	j := Attempt{}
	for i := 1; i <= MaxSharedReruns; i++ {
		rec := sharedRecord()
		why := re.Why(&rec, results.SpeedReference{}, &j)
		if !strings.HasPrefix(why, sharedPrefix) || !strings.Contains(why, "run again (") {
			t.Fatalf("re-run %d: reason %q", i, why)
		}
		j.Reruns++
	}
	rec := sharedRecord()
	if why := re.Why(&rec, results.SpeedReference{}, &j); why != "" || !re.sharedForGood {
		t.Fatalf("after %d re-runs: reason %q, shared for good %v", MaxSharedReruns, why, re.sharedForGood)
	}
	if len(rec.Warnings) != 1 || rec.Warnings[0].Kind != results.KindSharedRerun || !strings.Contains(rec.Warnings[0].Text, "still shared after 2 re-runs") {
		t.Errorf("the last run's warnings: %+v", rec.Warnings)
	}
	next, nextJob := sharedRecord(), Attempt{}
	if why := re.Why(&next, results.SpeedReference{}, &nextJob); why != "" || len(next.Warnings) != 1 {
		t.Errorf("a later shared run: reason %q, warnings %+v; want kept, saying why", why, next.Warnings)
	}
	if re.Left != 100-MaxSharedReruns {
		t.Errorf("%d re-runs left, want %d", re.Left, 100-MaxSharedReruns)
	}
}

func TestRerunsKeeps(t *testing.T) {
	failedCheck := sharedRecord()
	failedCheck.Checks = []evidence.Outcome{{What: "built-in answer check", Passed: false}}
	otherError := sharedRecord()
	otherError.Error = "killed by SIGKILL; " + otherError.Error
	warmup := sharedRecord()
	warmup.Warmup = true
	allowed := results.RunRecord{Valid: true, Sharing: SharedAllowed}
	for name, rec := range map[string]results.RunRecord{
		"a failed check": failedCheck, "an error of its own": otherError, "a warm-up": warmup, "allowed sharing": allowed,
	} {
		re := &Reruns{Left: 100}
		if why := re.Why(&rec, results.SpeedReference{}, &Attempt{}); why != "" {
			t.Errorf("%s: re-run (%q), want kept", name, why)
		}
	}
	// No re-run left of the bound on all runs: kept, and said.
	re, rec := &Reruns{Limit: 500}, sharedRecord()
	if why := re.Why(&rec, results.SpeedReference{}, &Attempt{}); why != "" || len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0].Text, "reached the limit") {
		t.Errorf("no re-run left: reason %q, warnings %+v", why, rec.Warnings)
	}
}

// After a run stayed shared through its re-runs, a later shared run is
// kept, saying why; a run that is not shared ends that, and the next
// shared run is re-run again.
func TestRerunsSharedForGoodEnds(t *testing.T) {
	re := &Reruns{Left: 100, sharedForGood: true}
	rec := sharedRecord()
	if why := re.Why(&rec, results.SpeedReference{}, &Attempt{}); why != "" || len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0].Text, "stayed shared through its re-runs") {
		t.Errorf("while shared for good: reason %q, warnings %+v", why, rec.Warnings)
	}
	quiet := results.RunRecord{Valid: true, Sharing: NotShared}
	if why := re.Why(&quiet, results.SpeedReference{}, &Attempt{}); why != "" || re.sharedForGood {
		t.Errorf("a run not shared: reason %q, shared for good %v", why, re.sharedForGood)
	}
	rec = sharedRecord()
	if why := re.Why(&rec, results.SpeedReference{}, &Attempt{}); !strings.HasSuffix(why, "(1 of at most 2)") {
		t.Errorf("a shared run after it: reason %q, want re-run", why)
	}
}

// The speed gate counts its own re-runs, not the shared ones of the same
// run.
func TestRerunsSpeedGateCountsItsOwn(t *testing.T) {
	// A run held back by a CPU limit for two thirds of its time, against
	// a best run of a third of it.
	slowed := func() results.RunRecord {
		throttled := 2.0
		return results.RunRecord{Index: 1, Valid: true, WallS: 3, UserS: 1, Sharing: NotShared, ThrottledS: &throttled}
	}
	best := results.Benchmark{Runs: []results.RunRecord{{WallS: 1, UserS: 1, Valid: true}}}
	ref := best.SpeedReference()
	re := &Reruns{SpeedGate: true, Left: 100}
	rec := slowed()
	if why := re.Why(&rec, ref, &Attempt{Reruns: 2, Shared: 2}); !strings.Contains(why, fmt.Sprintf("(1 of at most %d)", MaxSpeedReruns)) {
		t.Errorf("after two shared re-runs: reason %q, want the gate's first", why)
	}
	rec = slowed()
	j := Attempt{Reruns: 2 + MaxSpeedReruns, Shared: 2}
	if why := re.Why(&rec, ref, &j); why != "" || len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0].Text, "still slowed after 3 re-runs") {
		t.Errorf("after the gate's own re-runs: reason %q, warnings %+v", why, rec.Warnings)
	}
}
