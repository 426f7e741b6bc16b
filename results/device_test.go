package results

import (
	"bytes"
	"strings"
	"testing"
)

func TestHostDevice(t *testing.T) {
	h := Host{Hostname: "localhost"}
	if h.Name() != "localhost" || h.Label() != "localhost" {
		t.Errorf("a run started here: name %q, label %q", h.Name(), h.Label())
	}
	h.AddDevice(`{"on":"adb:192.168.1.20:5555","serial":"R58M1","model":"Google Pixel 7","os":"Android 14"}`)
	if h.On != "adb:192.168.1.20:5555" || h.Serial != "R58M1" || h.Model != "Google Pixel 7" || h.OS != "Android 14" {
		t.Errorf("device %+v", h)
	}
	if h.Name() != "R58M1" {
		t.Errorf("folder name %q", h.Name())
	}
	if want := "localhost, Google Pixel 7, Android 14, serial R58M1, via adb:192.168.1.20:5555"; h.Label() != want {
		t.Errorf("label %q, want %q", h.Label(), want)
	}
	bad := Host{Hostname: "x"}
	bad.AddDevice("not json")
	if bad != (Host{Hostname: "x"}) {
		t.Errorf("a malformed device: %+v", bad)
	}
}

// TestMergeTellsPhonesApart merges two runs of phones of one model, both
// with the hostname localhost: their labels differ by serial and target.
func TestMergeTellsPhonesApart(t *testing.T) {
	runs, names := mergeFixtures(t)
	for i, serial := range []string{"R58M1", "R58M2"} {
		runs[i].Host.Hostname = "localhost"
		runs[i].Host.AddDevice(`{"on":"adb:` + serial + `","serial":"` + serial + `","model":"Google Pixel 7","os":"Android 14"}`)
	}
	var b bytes.Buffer
	if err := Merged(runs, names).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[1] cpu0: localhost, Google Pixel 7, Android 14, serial R58M1, via adb:R58M1,", "[2] cpu1: localhost, Google Pixel 7, Android 14, serial R58M2, via adb:R58M2,"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("merge text lacks %q:\n%s", want, b.String())
		}
	}
}
