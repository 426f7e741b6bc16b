package samples

import (
	"bytes"
	"strings"
	"testing"
)

func ptr(v float64) *float64 { return &v }

func testSamples() []Sample {
	return []Sample{
		{T: 0, CPU: 0, UtilPct: ptr(12.5), FreqMHz: ptr(2400), FreqSource: "scaling_cur_freq"},
		{T: 0, CPU: 1, UtilPct: ptr(99), FreqSource: "none"},
		{T: 0.1, CPU: 1, UtilPct: nil, FreqMHz: ptr(3100), FreqSource: "scaling_cur_freq"},
	}
}

func TestCSVRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, testSamples()); err != nil {
		t.Fatal(err)
	}
	got, sources, err := ReadCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := testSamples()
	if len(got) != len(want) {
		t.Fatalf("%d samples, want %d", len(got), len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.T != w.T || g.CPU != w.CPU || g.FreqSource != w.FreqSource || !sameOpt(g.UtilPct, w.UtilPct) || !sameOpt(g.FreqMHz, w.FreqMHz) {
			t.Errorf("sample %d = %+v, want %+v", i, g, w)
		}
	}
	if strings.Join(sources, ",") != "scaling_cur_freq" {
		t.Errorf("sources %q", sources)
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
		if _, _, err := ReadCSV(strings.NewReader(text)); err == nil {
			t.Errorf("ReadCSV(%q) accepted it", text)
		}
	}
	s, _, err := ReadCSV(strings.NewReader(""))
	if err != nil || s == nil || len(s) != 0 {
		t.Errorf("an empty file: %v, %d samples", err, len(s))
	}
}

func FuzzReadCSV(f *testing.F) {
	var b bytes.Buffer
	WriteCSV(&b, testSamples())
	f.Add(b.String())
	f.Add("t_s,cpu,util_pct,freq_mhz,freq_source\n\"0\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, _, err := ReadCSV(strings.NewReader(text))
		if err == nil {
			// What it read, written and read again, is the same.
			var out bytes.Buffer
			WriteCSV(&out, s)
			again, _, err := ReadCSV(&out)
			if err != nil || len(again) != len(s) {
				t.Errorf("%q: read %d samples, again %d (%v)", text, len(s), len(again), err)
			}
		}
	})
}
