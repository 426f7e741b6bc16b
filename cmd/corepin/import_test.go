package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/results"
)

// hyperfine -N of a command and corepin run of a suite with the same
// command line compare side by side: both medians, a change, a test, and
// the note that the imported run's place is not recorded.
func TestImportedHyperfineComparesWithRun(t *testing.T) {
	skipInShort(t)
	cpu := requireExec(t)
	hyperfine, err := exec.LookPath("hyperfine")
	if err != nil {
		t.Skip("hyperfine is not installed (Debian package hyperfine)")
	}
	dir := t.TempDir()
	hf := filepath.Join(dir, "hf.json")
	if out, err := exec.Command(hyperfine, "-N", "--runs", "6", "--export-json", hf, "sleep 0.02").CombinedOutput(); err != nil {
		t.Fatalf("hyperfine: %v\n%s", err, out)
	}
	suite := filepath.Join(dir, "nap.toml")
	os.WriteFile(suite, []byte("[settings]\nruns = 6\nwarmup = 0\n[[benchmark]]\nname = \"nap\"\ncmd = \"sleep\"\nargs = [\"0.02\"]\n"), 0o644)
	out, errOut, code := corepin(t, "run", suite, "--cpu", fmt.Sprint(cpu), "--allow-sharing", "--out", filepath.Join(dir, "results"))
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	ran := lastLine(out)
	out, errOut, code = corepin(t, "import", "hyperfine", hf, "--out", filepath.Join(dir, "results"))
	if code != 0 || !strings.Contains(out, "where it ran: not recorded") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	imported := lastLine(out)
	if kept, err := os.ReadFile(filepath.Join(imported, "source", "hf.json")); err != nil || len(kept) == 0 {
		t.Errorf("the file is not kept: %v", err)
	}
	if page, err := os.ReadFile(filepath.Join(imported, "report.html")); err != nil || !strings.Contains(string(page), "not recorded") {
		t.Errorf("the imported run's page does not say where it ran is not recorded: %v", err)
	}
	out, errOut, code = corepin(t, "compare", imported, ran, "--format", "json")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, out, errOut)
	}
	text, _, _ := corepin(t, "compare", imported, ran)
	for _, want := range []string{"nap", "ran the same command line", "the old run has no scheduling evidence: where it ran: not recorded"} {
		if !strings.Contains(text, want) {
			t.Errorf("compare lacks %q:\n%s", want, text)
		}
	}
	for _, refused := range []string{"withheld", "only in"} {
		if strings.Contains(text, refused) {
			t.Errorf("compare says %q:\n%s", refused, text)
		}
	}
	if strings.Count(text, "ms") < 4 { // both medians and both intervals
		t.Errorf("compare does not put both medians side by side:\n%s", text)
	}
	run, err := results.Load(imported)
	if err != nil || run.Kind() != results.KindHyperfine || run.Benchmarks[0].N != 6 {
		t.Errorf("the imported run: %v", err)
	}
}

// A file that is not the tool's, or no file, is the command line's fault.
func TestImportRefusesWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"results": "no"}`), 0o644)
	for _, args := range [][]string{
		{"import", "hyperfine", bad},
		{"import", "pyperf", bad},
		{"import", "geekbench", bad},
		{"import", "hyperfine", filepath.Join(dir, "missing.json")},
		{"import", "hyperfine", dir},
		{"import", "pyperf", bad, bad},
	} {
		_, errOut, code := corepin(t, append(args, "--out", dir)...)
		if code != exitUsage || errOut == "" {
			t.Errorf("%q: exit %d, %s", args, code, errOut)
		}
	}
}
