package runner

import (
	"strings"
	"testing"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

func sharedRecord() results.RunRecord {
	return results.RunRecord{Index: 1, Sharing: SharedInvalid, Error: sharedPrefix + "others took 21% of the target CPU's time"}
}

// Only a run whose one fault is a shared target is run again for it, at
// most MaxSharedReruns times; once one stayed shared through them, no
// later run is re-run for sharing.
func TestRerunnerShared(t *testing.T) {
	re := &rerunner{left: 100}
	j := job{index: 1}
	for i := 1; i <= MaxSharedReruns; i++ {
		rec := sharedRecord()
		why := re.reason(&rec, 0, &j)
		if !strings.HasPrefix(why, sharedPrefix) || !strings.Contains(why, "run again (") {
			t.Fatalf("re-run %d: reason %q", i, why)
		}
		j.rerun++
	}
	rec := sharedRecord()
	if why := re.reason(&rec, 0, &j); why != "" || !re.sharedForGood {
		t.Fatalf("after %d re-runs: reason %q, shared for good %v", MaxSharedReruns, why, re.sharedForGood)
	}
	if len(rec.Warnings) != 1 || rec.Warnings[0].Kind != results.KindSharedRerun || !strings.Contains(rec.Warnings[0].Text, "still shared after 2 re-runs") {
		t.Errorf("the last run's warnings: %+v", rec.Warnings)
	}
	next, nextJob := sharedRecord(), job{index: 2}
	if why := re.reason(&next, 0, &nextJob); why != "" || len(next.Warnings) != 0 {
		t.Errorf("a later shared run: reason %q, warnings %+v; want kept, silently", why, next.Warnings)
	}
	if re.left != 100-MaxSharedReruns {
		t.Errorf("%d re-runs left, want %d", re.left, 100-MaxSharedReruns)
	}
}

func TestRerunnerKeeps(t *testing.T) {
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
		re := &rerunner{left: 100}
		if why := re.reason(&rec, 0, &job{}); why != "" {
			t.Errorf("%s: re-run (%q), want kept", name, why)
		}
	}
	// No re-run left in MaxTotalRuns: kept, and said.
	re, rec := &rerunner{}, sharedRecord()
	if why := re.reason(&rec, 0, &job{}); why != "" || len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0].Text, "reached the limit") {
		t.Errorf("no re-run left: reason %q, warnings %+v", why, rec.Warnings)
	}
}
