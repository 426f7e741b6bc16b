package page

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/results"
)

// mergeOfFixtures merges results' two runs of one job with --cpu 0 and
// --cpu 1.
func mergeOfFixtures(t *testing.T) results.Merge {
	t.Helper()
	var runs []*results.Run
	names := []string{"cpu0", "cpu1"}
	for _, n := range names {
		r, err := results.Load(filepath.Join("..", "..", "results", "testdata", "merge", n))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return results.Merged(runs, names)
}

func TestMergePage(t *testing.T) {
	m := mergeOfFixtures(t)
	var b strings.Builder
	if err := MergePage(m).Render(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"mask 0, on CPU 0", "mask 1, on CPU 1", "[2] median", "vs [1]", "×", `<svg class="chart"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the merge page lacks %q", want)
		}
	}
}

// TestMergePageInChromium opens the merge page in headless Chromium: both
// machines' evidence and the one benchmark table are in the document it
// builds, with the relative bars drawn.
func TestMergePageInChromium(t *testing.T) {
	browser := chromium(t)
	path := filepath.Join(t.TempDir(), "merge.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := MergePage(mergeOfFixtures(t)).Render(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), browserLimit())
	defer cancel()
	dom, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(),
		"--proxy-server=http://127.0.0.1:9", "--dump-dom", "file://"+path).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	text := string(dom)
	if n := strings.Count(text, "<table"); n != 2 {
		t.Errorf("%d tables, want the machines and the benchmarks", n)
	}
	for _, want := range []string{"mask 0, on CPU 0", "mask 1, on CPU 1", "CPU 0 was asked for", "CPU 1 was asked for", "[2] median", "fib", "json"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if strings.Count(text, "<rect") < 2 {
		t.Error("the relative bars are not drawn")
	}
}

// TestMergePageWithholds: a machine whose runs measured other work (here
// full sizes against quick) is shown without a relative figure or bar,
// with the reason.
func TestMergePageWithholds(t *testing.T) {
	var runs []*results.Run
	for _, n := range []string{"cpu0", "cpu1"} {
		r, err := results.Load(filepath.Join("..", "..", "results", "testdata", "merge", n))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	runs[1].Options.Quick = false
	m := results.Merged(runs, []string{"cpu0", "cpu1"})
	var b strings.Builder
	if err := MergePage(m).Render(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"withheld", "[2] is not compared with [1]: the runs differ in sizes: quick on [1], full on [2]"} {
		if !strings.Contains(page, want) {
			t.Errorf("the merge page lacks %q", want)
		}
	}
	if strings.Contains(page, "×") || strings.Contains(page, `<svg class="chart"`) {
		t.Error("the page relates the full run to the quick one")
	}
}
