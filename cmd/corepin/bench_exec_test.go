package main

import (
	"context"
	"fmt"
	"io"
	"testing"

	"corepin.dev/corepin/topology"
)

// BenchmarkExecTrue is corepin exec of /bin/true on the prime CPU as the
// command line runs it, flag parsing and target selection included, but
// not the process's own start.
func BenchmarkExecTrue(b *testing.B) {
	topo, err := topology.ReadForSelection("/")
	if err != nil {
		b.Fatal(err)
	}
	target, err := topo.Select("prime")
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"exec", "-q", "--cpu", fmt.Sprint(target.ExactCPU), "--", "true"}
	for b.Loop() {
		if code := runWith(context.Background(), io.Discard, io.Discard, args); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkVersion is the command line's own cost: building the command
// tree, parsing and printing.
func BenchmarkVersion(b *testing.B) {
	for b.Loop() {
		if code := runWith(context.Background(), io.Discard, io.Discard, []string{"version"}); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
