package timeline

import (
	"bytes"
	"strings"
	"testing"

	"corepin.dev/corepin/results/evidence"
)

func testSlices() []evidence.Slice {
	return []evidence.Slice{
		{Start: -0.000004, End: 0.25, CPU: 1, PID: 40, TID: 41, OnCPUS: 0.249, Work: true, Comm: "fib"},
		{Start: 0.25, End: 0.253, CPU: 1, PID: 7, TID: 7, OnCPUS: 0.002999999, Comm: "kworker/1:2"},
		{Start: 0.253, End: 0.3, CPU: 1, PID: 9, TID: 9, OnCPUS: 0.047, Comm: "a,\"b\"\x1b"},
	}
}

func TestCSVRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, testSlices()); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&b, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := testSlices()
	want[2].Comm = `a,"b"\e` // made visible, as every CSV of a results folder
	if len(got) != len(want) {
		t.Fatalf("%d slices, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("slice %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestReadCSVRefuses(t *testing.T) {
	head := "start_s,end_s,cpu,pid,tid,on_cpu_s,work,comm\n"
	for name, text := range map[string]string{
		"header":     "t_s,cpu\n",
		"short row":  head + "0,1,1\n",
		"backwards":  head + "1,0,1,2,2,0,0,x\n",
		"negative":   head + "0,1,1,2,2,-1,0,x\n",
		"not a CPU":  head + "0,1,-1,2,2,0,0,x\n",
		"work flag":  head + "0,1,1,2,2,0,yes,x\n",
		"NaN":        head + "NaN,1,1,2,2,0,0,x\n",
		"infinite":   head + "0,+Inf,1,2,2,0,0,x\n",
		"over limit": head + "0,1,1,2,2,0,0,x\n1,2,1,2,2,0,0,x\n1,2,1,2,2,0,0,x\n",
	} {
		if s, err := ReadCSV(strings.NewReader(text), 2); err == nil {
			t.Errorf("%s: read %+v without an error", name, s)
		}
	}
	s, err := ReadCSV(strings.NewReader(""), 2)
	if err != nil || s == nil || len(s) != 0 {
		t.Errorf("an empty file: %v, %d slices", err, len(s))
	}
}

func FuzzReadCSV(f *testing.F) {
	var b bytes.Buffer
	WriteCSV(&b, testSlices())
	f.Add(b.String())
	f.Add("start_s,end_s,cpu,pid,tid,on_cpu_s,work,comm\n\"0\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ReadCSV(strings.NewReader(text), 100)
		if err == nil {
			// What it read, written and read again, is the same.
			var out bytes.Buffer
			WriteCSV(&out, s)
			again, err := ReadCSV(&out, 100)
			if err != nil || len(again) != len(s) {
				t.Errorf("%q: read %d slices, again %d (%v)", text, len(s), len(again), err)
			}
		}
	})
}
