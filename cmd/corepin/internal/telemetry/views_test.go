package telemetry

import (
	"strings"
	"testing"

	"corepin.dev/corepin/internal/samples"
)

func ptr(v float64) *float64 { return &v }

func testSeries() *Series {
	return &Series{
		Samples: []samples.Sample{
			{T: 0, CPU: 0, UtilPct: ptr(12.5), FreqMHz: ptr(2400), FreqSource: "scaling_cur_freq"},
			{T: 0, CPU: 1, UtilPct: ptr(99), FreqSource: "none"},
			{T: 0.1, CPU: 1, UtilPct: nil, FreqMHz: ptr(3100), FreqSource: "scaling_cur_freq"},
		},
		Sources: []string{"scaling_cur_freq"},
	}
}

func TestTableViews(t *testing.T) {
	var table, latest strings.Builder
	s := testSeries()
	s.Notes = []Note{{Kind: NoteGap, Text: "a note"}}
	if err := s.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CPU0 %", "CPU1 MHZ", "12.5", "3100", "frequency source: scaling_cur_freq", "note: a note"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if err := s.WriteLatest(&latest); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(latest.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], "3100") || !strings.Contains(lines[2], "-") {
		t.Errorf("latest:\n%s", latest.String())
	}
}
