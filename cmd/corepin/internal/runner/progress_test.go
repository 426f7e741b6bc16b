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

// TestProgressAndWhyInvalid: quiet shows nothing, a terminal a status
// line, anything else a line per run; each invalid benchmark is named
// with its reason, made safe, and a valid one is not.
func TestProgressAndWhyInvalid(t *testing.T) {
	var w strings.Builder
	if e := Progress(&w, true, true); e != nil {
		t.Errorf("quiet: %T", e)
	}
	if _, ok := Progress(&w, false, true).(*barEvents); !ok {
		t.Errorf("a terminal: no status line")
	}
	if _, ok := Progress(&w, false, false).(*lineEvents); !ok {
		t.Errorf("a pipe: no line events")
	}
	run := &results.Run{Benchmarks: []results.Benchmark{
		{Name: "fib", Valid: true},
		{Name: "j\x1bson", Runs: []results.RunRecord{{Index: 1, Error: "exit status 3"}}},
	}}
	if why := WhyInvalid(run); len(why) != 1 || why[0] != `j\eson is invalid: run 1: exit status 3` {
		t.Errorf("why %q", why)
	}
}
