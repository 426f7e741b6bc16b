package runner

import (
	"os"
	"testing"

	"corepin.dev/corepin/results"
)

// skipUnvouchedInGuest skips a test one of whose runs was invalid only
// because its watcher could not keep up, when the test runs in a
// test/machines guest under TCG (MACHINE_ACCEL): the host runs the guest's
// CPUs in turns on its own few, a watcher there misses most of its ticks,
// and the run is rightly not vouched for. On a real machine, and in a
// guest on KVM, such a run fails the test.
func skipUnvouchedInGuest(t *testing.T, runs ...results.RunRecord) {
	t.Helper()
	shape := os.Getenv("MACHINE_SHAPE")
	if shape == "" || os.Getenv("MACHINE_ACCEL") == "kvm" {
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
			t.Skipf("under TCG in the %s guest the watcher missed its ticks (%s): the guest's CPUs take turns on the host's, and the run is rightly not vouched for", shape, watcherDetail(r))
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

// skipTimingUnderTCG skips a test that judges a figure of the target's
// time (the sharing verdict, the speed witness) in a test/machines guest
// under TCG: the host runs the guest's CPUs in turns, and the target's
// time is then the host's doing, not the work's and the others' (in the
// nocgroup guest a competitor that the scheduler's own switch events saw
// for 0.82 s on the target came to 0.04 s of /proc/stat's ticks; the
// speed witness read 0.40 before any competitor came).
func skipTimingUnderTCG(t *testing.T, figure string) {
	t.Helper()
	if shape := os.Getenv("MACHINE_SHAPE"); shape != "" && os.Getenv("MACHINE_ACCEL") != "kvm" {
		t.Skipf("under TCG in the %s guest the target's time measures the host's turns among the guest's CPUs: %s is not judged", shape, figure)
	}
}
