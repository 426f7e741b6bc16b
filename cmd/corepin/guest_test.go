package main

import (
	"os"
	"testing"

	"corepin.dev/corepin/results/evidence"
)

// skipUnvouchedWatch skips a test of what the watcher saw when, in a
// test/machines guest under TCG (MACHINE_ACCEL), the watcher missed its
// ticks: the host runs the guest's CPUs in turns, and a thread's first
// sample may come after most of its work. On a real machine, and on KVM,
// the test judges.
func skipUnvouchedWatch(t *testing.T, k evidence.KeepUp) {
	t.Helper()
	if shape := os.Getenv("MACHINE_SHAPE"); shape != "" && os.Getenv("MACHINE_ACCEL") != "kvm" && k.Unvouched {
		t.Skipf("under TCG in the %s guest the watcher missed %d of %d ticks: what it saw of the threads is not vouched for", shape, k.Missed, k.Expected)
	}
}

// skipTimingUnderTCG skips a test that judges a run's CPU time in a
// test/machines guest under TCG: a guest's task is charged the time the
// host took its virtual CPU away (sh -c "sleep 0.3" came to 4 s of CPU
// time in the nocgroup guest, beside a competitor), so what is too short
// to judge cannot be told there.
func skipTimingUnderTCG(t *testing.T, figure string) {
	t.Helper()
	if shape := os.Getenv("MACHINE_SHAPE"); shape != "" && os.Getenv("MACHINE_ACCEL") != "kvm" {
		t.Skipf("under TCG in the %s guest a task's CPU time holds the host's turns among the guest's CPUs: %s is not judged", shape, figure)
	}
}

// skipSlowUnderTCG skips, in a test/machines guest under TCG, a test
// whose benchmark runs take minutes there (the quick suite's fib and
// sha256 runs, emulated instruction by instruction): the shapes' tests
// must fit CI's budget. It says what is left out.
func skipSlowUnderTCG(t *testing.T, what string) {
	t.Helper()
	if shape := os.Getenv("MACHINE_SHAPE"); shape != "" && os.Getenv("MACHINE_ACCEL") != "kvm" {
		t.Skipf("under TCG in the %s guest %s take minutes: left to the run on the host", shape, what)
	}
}
