package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/results"
)

const specTestdata = "../../internal/spec/testdata/"

// An imported SPEC result is a results folder: run.json of kind spec,
// the result file kept byte for byte with its hash, and a folder that
// report, compare and merge take as corepin's own.
func TestImportSpecFolder(t *testing.T) {
	out := t.TempDir()
	for _, file := range []string{"rate.rsf", "rate.csv"} {
		stdout, errOut, code := corepin(t, "import", "spec", specTestdata+file, "--out", filepath.Join(out, file))
		if code != 0 {
			t.Fatalf("import %s: exit %d: %s", file, code, errOut)
		}
		dirs, _ := filepath.Glob(filepath.Join(out, file, "*-spec.042"))
		if len(dirs) != 1 || !strings.Contains(stdout, "3 benchmarks, 4 iterations, 0 of corepin's reports joined") {
			t.Fatalf("import %s made %q, said %q", file, dirs, stdout)
		}
		if !strings.Contains(errOut, "where it ran: not recorded") {
			t.Errorf("import %s without reports does not say so: %q", file, errOut)
		}
		run, err := results.Load(dirs[0])
		if err != nil {
			t.Fatal(err)
		}
		src, _ := os.ReadFile(specTestdata + file)
		kept, _ := os.ReadFile(filepath.Join(dirs[0], run.Source.File))
		sum := sha256.Sum256(src)
		if run.Kind() != results.KindSpec || !bytes.Equal(src, kept) || run.Source.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: kind %s, kept %d of %d bytes, sha256 %s", file, run.Kind(), len(kept), len(src), run.Source.SHA256)
		}
		if _, errOut, code := corepin(t, "report", dirs[0], "--out", filepath.Join(out, file+".html")); code != 0 {
			t.Errorf("report of the import: exit %d: %s", code, errOut)
		}
	}
	raw, _ := filepath.Glob(filepath.Join(out, "rate.rsf", "*"))
	table, _ := filepath.Glob(filepath.Join(out, "rate.csv", "*"))
	stdout, errOut, code := corepin(t, "compare", raw[0], table[0])
	if code != 0 || !strings.Contains(stdout, "505.mcf_r.base") {
		t.Errorf("compare of the two imports: exit %d: %s%s", code, stdout, errOut)
	}
	stdout, errOut, code = corepin(t, "merge", raw[0], table[0])
	if code != 0 || !strings.Contains(stdout, "505.mcf_r.base") {
		t.Errorf("merge of the two imports: exit %d: %s%s", code, stdout, errOut)
	}
}

// A result corepin cannot read, or what is joined with it, is a wrong
// command line (exit 2) that says why.
func TestImportSpecRefused(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.rsf")
	os.WriteFile(bad, []byte("spec.cpu2017.results.505_mcf_r.base.000.ratio: fast\n"), 0o644)
	csv := filepath.Join(dir, "t.csv")
	os.WriteFile(csv, []byte("t_s,cpu,util_pct,freq_mhz,freq_source\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(dir, "none.rsf")}, "no such file"},
		{[]string{dir}, "is not a regular file"},
		{[]string{bad}, `ratio: "fast" is not a number`},
		{[]string{specTestdata + "rate.rsf", "--evidence", filepath.Join(dir, "none")}, "--evidence"},
		{[]string{specTestdata + "rate.rsf", "--evidence", dir}, "no report of corepin exec"},
		{[]string{specTestdata + "rate.rsf", "--telemetry", csv}, "a CSV's times count from its own start"},
		{[]string{}, "the result file"},
	} {
		_, errOut, code := corepin(t, append([]string{"import", "spec", "--out", dir}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("import spec %s: exit %d, %q; want %d and %q", strings.Join(c.args, " "), code, errOut, exitUsage, c.want)
		}
	}
}
