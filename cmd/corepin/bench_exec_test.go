package main

import (
	"context"
	"fmt"
	"io"
	"testing"

	"corepin.dev/corepin/internal/testcpu"
)

// BenchmarkExecTrue is corepin exec of /bin/true on the default target as the
// command line runs it, flag parsing and target selection included, but
// not the process's own start.
func BenchmarkExecTrue(b *testing.B) {
	args := []string{"exec", "-q", "--cpu", fmt.Sprint(testcpu.Target(b)), "--", "true"}
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
