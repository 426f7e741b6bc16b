package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"corepin.dev/corepin/results"
)

const specTestdata = "internal/spec/testdata/"

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
	stdout, errOut, code = corepin(t, "merge", raw[0], table[0], "--out", filepath.Join(out, "merge.html"))
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

// A signal ends the import as it ends every command: 128+N, and no
// results folder, not half of one. The context is cancelled before the
// import reads anything, as SIGINT cancels it at any point; the import
// looks at it while it reads the reports and before it saves.
func TestImportSpecInterrupted(t *testing.T) {
	out := t.TempDir()
	evidenceDir := filepath.Join(t.TempDir(), "corepin.042")
	os.MkdirAll(evidenceDir, 0o755)
	os.WriteFile(filepath.Join(evidenceDir, "505.mcf_r.base.i0.w0.c0.json"), []byte("{}"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := runWith(ctx, &stdout, &stderr, []string{"import", "spec", specTestdata + "rate.rsf", "--evidence", evidenceDir, "--out", out})
	if code != 128+int(syscall.SIGINT) || !strings.Contains(stderr.String(), "interrupted; nothing was written") {
		t.Errorf("exit %d, %q; want %d", code, stderr.String(), 128+int(syscall.SIGINT))
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("an interrupted import left %v", left)
	}
}

// The import says what it made in words that count ("1 benchmark"), and
// the three means: SPEC's, the recomputed one, and corepin's evidence's,
// none without reports.
func TestImportSpecSays(t *testing.T) {
	dir := t.TempDir()
	rsf := filepath.Join(dir, "one.rsf")
	data, _ := os.ReadFile(specTestdata + "speed2026.rsf")
	one := strings.Join(slices.DeleteFunc(strings.Split(string(data), "\n"), func(l string) bool { return strings.Contains(l, ".peak.") }), "\n")
	os.WriteFile(rsf, []byte(one), 0o644)
	stdout, errOut, code := corepin(t, "import", "spec", rsf, "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{": 1 benchmark, 1 iteration, 0 of corepin's reports joined\n", "base mean: SPEC's 12.5, recomputed 12.5, by corepin's evidence none\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout %q lacks %q", stdout, want)
		}
	}
	if !strings.Contains(errOut, "no base mean by corepin's evidence: no report of corepin's was joined") {
		t.Errorf("stderr %q does not say why there is no evidence mean", errOut)
	}
	if dirs, _ := filepath.Glob(filepath.Join(dir, "*-spec.007", "telemetry")); len(dirs) != 0 {
		t.Errorf("an import without curves left %s", dirs)
	}
}
