package main

import (
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
	if _, errOut, code := corepin(t, "merge", dirs[0]); code != exitUsage {
		t.Errorf("one folder: exit %d, %s", code, errOut)
	}
	if _, errOut, code := corepin(t, "--on", "adb", "merge", dirs[0], dirs[1]); code != exitUsage || !strings.Contains(errOut, "takes no --on") {
		t.Errorf("merge --on: exit %d, %s", code, errOut)
	}
}
