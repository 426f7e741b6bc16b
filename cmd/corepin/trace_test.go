package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"corepin.dev/corepin/cmd/corepin/internal/traceevent"
	"corepin.dev/corepin/results"
)

// TestRunTrace runs one short built-in and holds the folder's trace.json
// to the trace-event format's rules and to its run.json: each run a slice
// over its measured window and, where corepin traced the scheduler's
// switches, the slices outside the work adding up to the run's others'
// time within a millisecond. corepin report --trace writes the same trace
// from the folder.
func TestRunTrace(t *testing.T) {
	requireExec(t)
	out, errOut, code := corepin(t, "run", "--quick", "--only", "fib", "--runs", "2", "--warmup", "0", "--allow-sharing", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	dir := lastLine(out)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, traceevent.Name))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := traceevent.Check(data)
	if err != nil {
		t.Fatalf("%s: %v", traceevent.Name, err)
	}
	agreements, err := traceevent.Verify(run, tr)
	if err != nil {
		t.Error(err)
	}
	compared := 0
	for _, a := range agreements {
		t.Logf("%s: others %.3f ms, slices outside the work %.3f ms (%s)", a.Run, 1000*a.OthersS, 1000*a.SlicesS, a.Why)
		if a.Compared {
			compared++
		}
	}

	file := filepath.Join(t.TempDir(), "run.trace.json")
	if out, errOut, code := corepin(t, "report", dir, "--trace", file); code != 0 {
		t.Fatalf("report --trace: exit %d\n%s\n%s", code, out, errOut)
	}
	again, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("report --trace of the folder differs from the trace run wrote")
	}
	if compared == 0 && len(agreements) > 0 {
		t.Skipf("the slices' half is not checked: %s", agreements[0].Why)
	}
}

// TestReportWritesOnlyWhereAsked renders a copy of a results folder: with
// neither --out nor --trace the page and the trace go into it; with --out
// alone only the page is written, there, and with --trace alone only the
// trace: nothing goes into the folder a view was asked to write elsewhere.
func TestReportWritesOnlyWhereAsked(t *testing.T) {
	folder := t.TempDir()
	if err := os.CopyFS(folder, os.DirFS("internal/traceevent/testdata/run")); err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		entries, err := os.ReadDir(folder)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	before := names()
	elsewhere := t.TempDir()
	page, trace := filepath.Join(elsewhere, "page.html"), filepath.Join(elsewhere, "run.trace.json")
	for _, c := range []struct {
		args  []string
		wrote []string
	}{
		{[]string{"--out", page}, []string{page}},
		{[]string{"--trace", trace}, []string{trace}},
		{[]string{"--out", page, "--trace", trace}, []string{page, trace}},
	} {
		os.Remove(page)
		os.Remove(trace)
		out, errOut, code := corepin(t, append([]string{"report", folder}, c.args...)...)
		if code != 0 {
			t.Fatalf("report %v: exit %d\n%s", c.args, code, errOut)
		}
		if got := strings.Fields(out); !slices.Equal(got, c.wrote) {
			t.Errorf("report %v wrote %q, want %q", c.args, got, c.wrote)
		}
		for _, f := range []string{page, trace} {
			if _, err := os.Stat(f); (err == nil) != slices.Contains(c.wrote, f) {
				t.Errorf("report %v: %s is there: %v", c.args, f, err == nil)
			}
		}
		if now := names(); !slices.Equal(now, before) {
			t.Errorf("report %v wrote into the folder: %q, before %q", c.args, now, before)
		}
	}
	out, errOut, code := corepin(t, "report", folder)
	want := []string{filepath.Join(folder, "report.html"), filepath.Join(folder, traceevent.Name)}
	if got := strings.Fields(out); code != 0 || !slices.Equal(got, want) {
		t.Errorf("report of the folder alone: exit %d, wrote %q, want %q\n%s", code, got, want, errOut)
	}
}
