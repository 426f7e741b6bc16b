package telemetry

import (
	"bytes"
	"strings"
	"testing"
)

func ptr(v float64) *float64 { return &v }

func testSeries() *Series {
	return &Series{
		Samples: []Sample{
			{T: 0, CPU: 0, UtilPct: ptr(12.5), FreqMHz: ptr(2400), FreqSource: "scaling_cur_freq"},
			{T: 0, CPU: 1, UtilPct: ptr(99), FreqSource: "none"},
			{T: 0.1, CPU: 1, UtilPct: nil, FreqMHz: ptr(3100), FreqSource: "scaling_cur_freq"},
		},
		Sources: []string{"scaling_cur_freq"},
	}
}

func TestCSVRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := testSeries().WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := testSeries()
	if len(got.Samples) != len(want.Samples) {
		t.Fatalf("%d samples, want %d", len(got.Samples), len(want.Samples))
	}
	for i, g := range got.Samples {
		w := want.Samples[i]
		if g.T != w.T || g.CPU != w.CPU || g.FreqSource != w.FreqSource || !sameOpt(g.UtilPct, w.UtilPct) || !sameOpt(g.FreqMHz, w.FreqMHz) {
			t.Errorf("sample %d = %+v, want %+v", i, g, w)
		}
	}
	if strings.Join(got.Sources, ",") != "scaling_cur_freq" {
		t.Errorf("sources %q", got.Sources)
	}
}

func sameOpt(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func TestReadCSVRefusesWhatItDidNotWrite(t *testing.T) {
	for _, text := range []string{
		"t,cpu\n0,1\n",
		"t_s,cpu,util_pct,freq_mhz,freq_source\n0.1,x,1,2,none\n",
		"t_s,cpu,util_pct,freq_mhz,freq_source\n0.1,1,1\n",
		"t_s,cpu,util_pct,freq_mhz,freq_source\n0.1,1,lots,2,none\n",
	} {
		if _, err := ReadCSV(strings.NewReader(text)); err == nil {
			t.Errorf("ReadCSV(%q) accepted it", text)
		}
	}
	s, err := ReadCSV(strings.NewReader(""))
	if err != nil || len(s.Samples) != 0 {
		t.Errorf("an empty file: %v, %d samples", err, len(s.Samples))
	}
}

func FuzzReadCSV(f *testing.F) {
	var b bytes.Buffer
	testSeries().WriteCSV(&b)
	f.Add(b.String())
	f.Add("t_s,cpu,util_pct,freq_mhz,freq_source\n\"0\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ReadCSV(strings.NewReader(text))
		if err == nil {
			// What it read, written and read again, is the same.
			var out bytes.Buffer
			s.WriteCSV(&out)
			again, err := ReadCSV(&out)
			if err != nil || len(again.Samples) != len(s.Samples) {
				t.Errorf("%q: read %d samples, again %d (%v)", text, len(s.Samples), len(again.Samples), err)
			}
		}
	})
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
