package topology

import (
	"testing"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/sysfstest"
)

// BenchmarkReadEPYC reads the largest real dump: 96 CPUs, 8 NUMA nodes.
func BenchmarkReadEPYC(b *testing.B) {
	root := sysfstest.Unpack(b, "x86_64-epyc_7451")
	for b.Loop() {
		if _, err := Read(fsroot.Root(root)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadLive reads the running machine.
func BenchmarkReadLive(b *testing.B) {
	for b.Loop() {
		if _, err := Read("/"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSelectEPYC is what corepin exec and run read to pick a target
// on a 96-CPU machine: the lighter read, then the selection.
func BenchmarkSelectEPYC(b *testing.B) {
	root := sysfstest.Unpack(b, "x86_64-epyc_7451")
	for b.Loop() {
		t, err := ReadForSelection(fsroot.Root(root))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := t.Select("5"); err != nil {
			b.Fatal(err)
		}
	}
}
