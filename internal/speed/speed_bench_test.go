package speed

import (
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/testcpu"
)

// BenchmarkWitness is what the runner spends per probe of a process run:
// the probe thread's mask checked, one probe of the default duration.
// Two of them witness a run.
func BenchmarkWitness(b *testing.B) {
	cpu := testcpu.Target(b)
	th, err := NewThread(cpuset.Of(cpu))
	if err != nil {
		b.Fatal(err)
	}
	defer th.Stop()
	var p Probe
	th.Do(func() { p = Calibrate(0) })
	for b.Loop() {
		if err := th.Do(func() { p.Read() }); err != nil {
			b.Fatal(err)
		}
	}
}
