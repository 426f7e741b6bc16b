package runner

import (
	"strings"
	"testing"

	"corepin.dev/corepin/results"
)

func TestBarEvents(t *testing.T) {
	var b strings.Builder
	e := &barEvents{w: &b}
	e.Start(4)
	e.RunStarted("fib", 0, 2, false)
	e.RunDone("fib", &results.RunRecord{})
	e.RunDone("fib", &results.RunRecord{})
	last := b.String()[strings.LastIndex(b.String(), "\r"):]
	if !strings.Contains(last, "fib       run 1/2") || !strings.Contains(last, "["+strings.Repeat("=", 15)+strings.Repeat(" ", 15)+"] 2/4 · ETA ") {
		t.Errorf("status line %q", last)
	}
	e.Finish()
	if !strings.HasSuffix(b.String(), "\r\x1b[K") {
		t.Errorf("the line is not cleared at the end: %q", b.String())
	}
}
