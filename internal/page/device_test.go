package page

import (
	"bytes"
	"strings"
	"testing"
)

// TestPageNamesTheDevice: a run on a device says which one in the page's
// header, and the merge page's host column tells two such phones apart.
func TestPageNamesTheDevice(t *testing.T) {
	run := smallRun(t)
	run.Host.Hostname = "localhost"
	run.Host.AddDevice(`{"on":"hdc:7001005458323933328a","serial":"SN123","model":"SGU-AL10","os":"OpenHarmony-5.0.0.71"}`)
	var b bytes.Buffer
	if err := Write(&b, run, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if want := "<h1>corepin · localhost, SGU-AL10, OpenHarmony-5.0.0.71, serial SN123, via hdc:7001005458323933328a · "; !strings.Contains(b.String(), want) {
		t.Errorf("the page's header lacks %q", want)
	}
	m := mergeOfFixtures(t)
	m.Machines[0].Host.AddDevice(`{"serial":"SN1","model":"SGU-AL10"}`)
	m.Machines[1].Host.AddDevice(`{"serial":"SN2","model":"SGU-AL10"}`)
	var mb strings.Builder
	if err := MergePage(m).Render(&mb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SGU-AL10, serial SN1", "SGU-AL10, serial SN2"} {
		if !strings.Contains(mb.String(), want) {
			t.Errorf("the merge page lacks %q", want)
		}
	}
}
