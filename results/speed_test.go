package results

import (
	"bytes"
	"encoding/json"
	"testing"
)

// timed is a counted run of wall seconds that used cpu seconds of CPU
// time, whose probe after it read probe steps per second.
func timed(index int, wall, cpu, probe float64) RunRecord {
	on := 1.0
	zero := 0.0
	return RunRecord{Index: index, WallS: wall, UserS: cpu, Valid: true, OthersS: &zero, StealS: &zero,
		ProbeAfter: &SpeedProbe{Rate: probe, OnCPU: &on}}
}

// Runs' own speeds are figures of the statistics: the best run's is 1,
// a run of twice its time 0.5; a probe's reading is a fraction of the
// benchmark's best.
func TestSpeedFigures(t *testing.T) {
	b := Benchmark{Name: "loop", PlannedRuns: 3, SpeedBestRate: 1000,
		Runs: []RunRecord{timed(0, 1, 1, 1000), timed(1, 2, 1, 300), timed(2, 1.01, 1, 1000)}}
	b.Summarize()
	if *b.Runs[0].Speed != 1 || *b.Runs[1].Speed != 0.5 || *b.Runs[1].SpeedAfter != 0.3 {
		t.Errorf("speeds %v %v, probe %v", *b.Runs[0].Speed, *b.Runs[1].Speed, *b.Runs[1].SpeedAfter)
	}
	if b.Runs[1].Slowed() || len(b.Warnings) != 0 {
		t.Errorf("statistics judged: slowed %q, warnings %v", b.Runs[1].SlowedBy, b.Warnings)
	}
}

func TestDroppedRunsComeBackFromTheJournal(t *testing.T) {
	kept, dropped := timed(1, 1, 1, 1000), timed(1, 2, 2, 400)
	dropped.Dropped = "slowed"
	var buf bytes.Buffer
	for _, rec := range []RunRecord{dropped, kept} {
		line, _ := json.Marshal(entry{Benchmark: "loop", Record: rec})
		buf.Write(append(line, '\n'))
	}
	r := &Run{Benchmarks: []Benchmark{{Name: "loop", PlannedRuns: 1}}}
	if err := replay(r, &buf); err != nil {
		t.Fatal(err)
	}
	b := &r.Benchmarks[0]
	b.Summarize()
	if len(b.Runs) != 1 || len(b.DroppedRuns) != 1 || b.MedianS != 1 {
		t.Fatalf("runs %d, dropped %d, median %v: want the dropped run out of the statistics", len(b.Runs), len(b.DroppedRuns), b.MedianS)
	}
}
