package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMergeCommand(t *testing.T) {
	dirs := []string{"../../results/testdata/merge/cpu0", "../../results/testdata/merge/cpu1"}
	page := filepath.Join(t.TempDir(), "fleet.html")
	out, errOut, code := corepin(t, append([]string{"merge", "--out", page}, dirs...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, err := os.ReadFile("../../results/testdata/merge.golden")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("corepin merge printed:\n%s\nwant results/testdata/merge.golden:\n%s", out, want)
	}
	if html, err := os.ReadFile(page); err != nil || !strings.Contains(string(html), "mask 1, on CPU 1") {
		t.Errorf("the page: %v", err)
	}
	csv, _, code := corepin(t, append([]string{"merge", "--out", page, "--format", "csv"}, dirs...)...)
	if code != 0 || !strings.HasPrefix(csv, "benchmark,machine,") || strings.Count(csv, "\n") != 5 {
		t.Errorf("csv: exit %d\n%s", code, csv)
	}
	// One folder is a fleet of one (a batch script's glob on one node).
	if out, errOut, code := corepin(t, "merge", "--out", page, dirs[0]); code != 0 || !strings.Contains(out, "[1] cpu0") || strings.Contains(out, "[2]") {
		t.Errorf("one folder: exit %d, %s\n%s", code, errOut, out)
	}
	if _, errOut, code := corepin(t, "merge", "--out", page); code != exitUsage {
		t.Errorf("no folder: exit %d, %s", code, errOut)
	}
	if _, errOut, code := corepin(t, "--on", "adb", "merge", dirs[0], dirs[1]); code != exitUsage || !strings.Contains(errOut, "takes no --on") {
		t.Errorf("merge --on: exit %d, %s", code, errOut)
	}
}

// copyRun writes the run.json of the fixture folder src into a new folder
// named name, changed by edit (on its decoded JSON).
func copyRun(t *testing.T, src, name string, edit func(map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(src, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	edit(run)
	if data, err = json.Marshal(run); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMergeRefuses: what merge cannot compare is shown without a ratio and
// with the reason; what it cannot merge at all is refused with exit 2.
func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	quick := "../../results/testdata/merge/cpu0"
	page := filepath.Join(t.TempDir(), "fleet.html")
	full := copyRun(t, "../../results/testdata/merge/cpu1", "full", func(r map[string]any) { r["options"].(map[string]any)["quick"] = false })
	native := copyRun(t, "../../results/testdata/merge/cpu1", "native", func(r map[string]any) { r["host"].(map[string]any)["corepin_version"] = "native" })
	suite := func(name, path, sum string) string {
		return copyRun(t, "../../results/testdata/merge/cpu1", name, func(r map[string]any) {
			o := r["options"].(map[string]any)
			o["suite"], o["suite_sha256"] = path, sum
		})
	}
	labA := suite("lab-a", "/a/lab.toml", "aaaaaaaaaaaaaaaaaaaa")
	for _, tt := range []struct{ first, other, reason string }{
		{quick, full, "the runs differ in sizes: quick on [1], full on [2]"},
		{quick, native, "the runs differ in kind: built-in on [1], native on [2]"},
		{labA, suite("lab-b", "/b/lab.toml", "bbbbbbbbbbbbbbbbbbbb"), "the runs differ in suite: lab.toml (sha256 aaaaaaaaaaaa…) on [1], lab.toml (sha256 bbbbbbbbbbbb…) on [2]"},
	} {
		out, errOut, code := corepin(t, "merge", "--out", page, tt.first, tt.other)
		if code != 0 || !strings.Contains(out, tt.reason) || strings.Contains(out, "×") || !strings.Contains(out, "withheld") {
			t.Errorf("merge of %s: exit %d, %s\n%s", filepath.Base(tt.other), code, errOut, out)
		}
		if html, err := os.ReadFile(page); err != nil || !strings.Contains(string(html), tt.reason) {
			t.Errorf("the page of %s lacks the reason: %v", filepath.Base(tt.other), err)
		}
	}
	v9 := copyRun(t, quick, "v9", func(r map[string]any) { r["schema"] = "corepin.run/v9" })
	for _, args := range [][]string{
		{quick, quick},
		{quick, quick + "/"},
		{quick, filepath.Join(quick, "run.json")},
		{full, filepath.Join(full, "..", "full")},
	} {
		_, errOut, code := corepin(t, append([]string{"merge", "--out", page}, args...)...)
		if code != exitUsage || !strings.Contains(errOut, "are the same results folder") {
			t.Errorf("merge %q: exit %d, %s", args, code, errOut)
		}
	}
	if _, errOut, code := corepin(t, "merge", "--out", page, quick, v9); code != exitUsage || !strings.Contains(errOut, `schema "corepin.run/v9" is not one this corepin reads`) {
		t.Errorf("merge of a v9 run: exit %d, %s", code, errOut)
	}
}

// TestFiguresThatAreNotTimes: a folder whose median is 1e308 s or 1e-300 s
// gets no verdict from compare or merge, in any format, and the reason;
// --format json is written. One folder given twice to compare is refused.
func TestFiguresThatAreNotTimes(t *testing.T) {
	t.Parallel()
	base := "../../results/testdata/merge/cpu0"
	page := filepath.Join(t.TempDir(), "page.html")
	fibOnly := func(r map[string]any) { r["benchmarks"] = r["benchmarks"].([]any)[:1] }
	same := copyRun(t, base, "same", fibOnly)
	for _, v := range []float64{1e308, 1e-300} {
		odd := copyRun(t, base, "odd", func(r map[string]any) {
			fibOnly(r)
			b := r["benchmarks"].([]any)[0].(map[string]any)
			b["median_s"] = v
			for _, run := range b["runs"].([]any) {
				run.(map[string]any)["wall_s"] = v
			}
		})
		for _, args := range [][]string{{"compare", same, odd}, {"compare", odd, same}, {"merge", "--out", page, same, odd}} {
			for _, format := range []string{"text", "csv", "json"} {
				out, errOut, code := corepin(t, append(args, "--format", format)...)
				if code != 0 || strings.Contains(out, "Inf") || strings.Contains(out, "×") || strings.Contains(out, "faster") || strings.Contains(out, "slower") {
					t.Errorf("%s %g --format %s: exit %d, %s\n%s", args[0], v, format, code, errOut, out)
				}
				if format == "json" && !json.Valid([]byte(out)) {
					t.Errorf("%s %g --format json wrote no JSON:\n%s", args[0], v, out)
				}
				if format != "csv" && !strings.Contains(out, "is not a time") {
					t.Errorf("%s %g --format %s does not say why:\n%s", args[0], v, format, out)
				}
			}
		}
	}
	for _, again := range []string{same, same + "/", filepath.Join(same, "run.json")} {
		if _, errOut, code := corepin(t, "compare", same, again); code != exitUsage || !strings.Contains(errOut, "are the same results folder") {
			t.Errorf("compare %s %s: exit %d, %s", same, again, code, errOut)
		}
	}
}
