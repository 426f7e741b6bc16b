package judge

import (
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/results"
)

// endOf is what a run's end says of run, its own warnings' texts.
func endOf(run *results.Run, e Ending) string {
	run.Warnings = nil
	testWords.End(run, e)
	return strings.Join(results.WarningTexts(run.Warnings), "\n")
}

// A suite without reference times has no score to miss: no warning; one
// that had a score to have says why it has none.
func TestNoScoreOnlyWhereOneWasToBeHad(t *testing.T) {
	run := &results.Run{Benchmarks: []results.Benchmark{{Name: "a", Valid: true}, {Name: "b", Valid: true}}}
	for _, c := range []struct {
		change func()
		want   string
	}{
		{func() {}, ""},
		{func() { run.Benchmarks[0].ReferenceS = 1 }, "no score: b has no reference time"},
		{func() { run.Benchmarks[1].ReferenceS, run.Benchmarks[1].Valid = 1, false }, "no score: b invalid or unfinished"},
		{func() { run.StoppedEarly = "CPU 3 went offline" }, "no score: b invalid or unfinished; the run stopped early"},
	} {
		c.change()
		if got := endOf(run, Ending{}); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

// What the run's end says, in order, each of its kind: the target gone
// offline, a program without a version, a benchmark skipped, a tune lost.
func TestEnd(t *testing.T) {
	run := &results.Run{Skipped: []results.Skip{{Name: "zstd", Why: "zstd is not installed (Debian package zstd)"}}}
	e := Ending{
		Offline: []Finding{
			Offline("run 4 of lbm", "CPU 3 is offline (/sys/devices/system/cpu/online says 0-2)", 1500*time.Millisecond, time.Minute, false),
			Offline("run 5 of lbm", "CPU 3 is offline", 0, 0, true),
			Offline("run 5 of lbm", "CPU 3 is offline", time.Minute, time.Minute, true),
		},
		Unversioned: []Unversioned{{Name: "gzip", Why: "exit status 1"}},
		Lost:        "the tune was lost during the run: …",
	}
	var b strings.Builder
	testWords.End(run, e)
	for _, w := range run.Warnings {
		b.WriteString(w.Kind + " " + w.Severity + ": " + w.Text + "\n")
	}
	b.WriteString("without --wait-online:\n" + Words{}.Text(e.Offline[1]) + "\n")
	golden(t, "end.golden", b.String())
}

func TestFrequencyMoved(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		locked   int64
		min, max *float64
		warn     bool
	}{
		{2419200, f(2419), f(2419), false},
		{2419200, f(2390), f(2440), false}, // read-out granularity
		{2419200, f(1555), f(2419), true},  // throttled
		{2419200, f(2419), f(2841), true},  // a daemon raised it
		{2419200, nil, nil, false},         // no frequency source
	} {
		if _, moved := movedFrom(tc.locked, results.TelemetryStats{FreqMinMHz: tc.min, FreqMaxMHz: tc.max}); moved != tc.warn {
			t.Errorf("locked %d, seen %v–%v: moved %v", tc.locked, tc.min, tc.max, moved)
		}
	}
}
