package runner

import (
	"os"
	"testing"

	"corepin.dev/corepin/results"
)

// skipUnvouchedInGuest skips a test one of whose runs was invalid only
// because its watcher could not keep up, when the test runs in a
// test/machines guest: under TCG the host runs the guest's CPUs in turns
// on its own few, and a watcher there misses most of its ticks. On a real
// machine such a run fails the test.
func skipUnvouchedInGuest(t *testing.T, runs ...results.RunRecord) {
	t.Helper()
	shape := os.Getenv("MACHINE_SHAPE")
	if shape == "" {
		return
	}
	for _, r := range runs {
		if r.Valid || r.Error != "" {
			continue
		}
		only := false
		for _, c := range r.Checks {
			switch {
			case c.Passed:
			case c.What == "the watcher kept up":
				only = true
			default:
				return
			}
		}
		if only {
			t.Skipf("in the emulated %s guest the watcher missed its ticks (%s), which TCG's turns on the host's CPUs cause", shape, watcherDetail(r))
		}
	}
}

func watcherDetail(r results.RunRecord) string {
	for _, c := range r.Checks {
		if c.What == "the watcher kept up" {
			return c.Detail
		}
	}
	return ""
}
