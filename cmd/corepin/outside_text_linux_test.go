package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"corepin.dev/corepin/internal/termsafetest"
	"corepin.dev/corepin/results"
)

const evil = termsafetest.Evil

// tomlString is s as a TOML basic string, every rune but the printable
// ones escaped.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' || !unicode.IsPrint(r) {
			fmt.Fprintf(&b, `\u%04X`, r)
		} else {
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// checkedCorepin runs this test binary as corepin, and checks that nothing
// it printed, on standard output or standard error, holds a byte a
// terminal would obey.
func checkedCorepin(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := corepinProcess(t, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) {
			t.Fatalf("corepin %q: %v", args, err)
		}
	}
	termsafetest.Check(t, fmt.Sprintf("corepin %q: its standard output", args), out.Bytes())
	termsafetest.Check(t, fmt.Sprintf("corepin %q: its standard error", args), errOut.Bytes())
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// TestOutsideTextIsMadeSafe runs a suite whose benchmarks print outside
// text at its worst (termsafetest.Evil: an escape sequence, a comma, a
// quote, a newline, a carriage return, a bell, DEL, the 8-bit CSI and a
// right-to-left override) on both their outputs, from a folder named
// with it, then merges, compares and reports the results, one folder of
// them renamed with it too. Nothing corepin prints, and no file it
// writes, holds a control byte but newline and tab (corepin's own tables
// and bench.txt use tabs; an outside tab is shown as \t): JSON files decode
// and escape theirs, keeping the exact bytes. The only exception is the
// command's own standard output, which corepin keeps byte for byte.
func TestOutsideTextIsMadeSafe(t *testing.T) {
	t.Parallel()
	skipInShort(t)
	requireExec(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in", "suite"+evil)
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		p := filepath.Join(in, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// A suite refuses such a name, and says so safely; so are a key it
	// does not know and a raw control byte, which TOML does not allow.
	for name, body := range map[string]string{
		"name.toml": "[[benchmark]]\nname = " + tomlString(evil) + "\ncmd = \"true\"\n",
		"key.toml":  "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\n" + tomlString(evil) + " = 1\n",
		"raw.toml":  "[[benchmark]]\nname = \"x" + evil + "\"\ncmd = \"true\"\n",
	} {
		_, stderr, code := checkedCorepin(t, "run", write(name, body), "--out", out)
		if code != exitFailure || !strings.HasPrefix(stderr, "corepin: ") {
			t.Errorf("suite %s: exit %d, %q", name, code, stderr)
		}
	}

	// One benchmark exits 3 after printing the text on both outputs, one
	// prints it and fails its check against a reference that holds it.
	printBoth := "printf '%s' \"$1\"; printf '%s' \"$1\" >&2; exit 3"
	write("evil.ref", "y "+evil+"\n")
	suite := write("s.toml", fmt.Sprintf(`[settings]
runs = 1
warmup = 0

[[benchmark]]
name = "exits"
cmd = "sh"
args = ["-c", %q, "sh", %s]

[[benchmark]]
name = "checked"
cmd = "sh"
args = ["-c", "printf 'x %%s\\n' \"$1\"", "sh", %s]
  [[benchmark.check]]
  stdout = true
  expected = "evil.ref"
`, printBoth, tomlString(evil), tomlString(evil)))
	stdout, stderr, code := checkedCorepin(t, "run", suite, "--allow-sharing", "--out", out)
	if code != exitFailure || !strings.Contains(stdout, "exits is invalid: run 0: exit status 3: ") {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	first := lastLine(stdout)
	if _, stderr, code := checkedCorepin(t, "run", "-q", suite, "--allow-sharing", "--out", out); code != exitFailure || !strings.Contains(stderr, "exits is invalid") {
		t.Errorf("run -q: exit %d, %q", code, stderr)
	}
	// run.json keeps the exact bytes.
	run, err := results.Load(first)
	if err != nil {
		t.Fatal(err)
	}
	if b := run.Benchmarks[0]; b.Name != "exits" || len(b.Runs) != 1 || !strings.Contains(b.Runs[0].Error, evil) || !strings.Contains(strings.Join(b.Command, " "), evil) {
		t.Errorf("run.json lost the bytes: %q, %q, %d runs", b.Name, b.Command, len(b.Runs))
	}
	if !strings.Contains(run.Options.Suite, evil) {
		t.Errorf("run.json's suite is %q", run.Options.Suite)
	}

	// The folder again, named with the text, as a merge or a comparison
	// of folders gathered from anywhere may be.
	second := filepath.Join(out, "copy"+evil)
	if err := os.CopyFS(second, os.DirFS(first)); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "csv", "json"} {
		if _, stderr, code := checkedCorepin(t, "merge", first, second, "--format", format, "--out", filepath.Join(out, "merge.html")); code != 0 {
			t.Errorf("merge --format %s: exit %d, %s", format, code, stderr)
		}
		if _, stderr, code := checkedCorepin(t, "compare", first, second, "--format", format, "--html", filepath.Join(out, "compare.html")); code != 0 {
			t.Errorf("compare --format %s: exit %d, %s", format, code, stderr)
		}
	}
	if _, stderr, code := checkedCorepin(t, "report", second); code != 0 {
		t.Errorf("report: exit %d, %s", code, stderr)
	}
	if _, stderr, code := checkedCorepin(t, "report", first, "--out", filepath.Join(out, "page.html")); code != 0 {
		t.Errorf("report --out: exit %d, %s", code, stderr)
	}

	// Every file corepin wrote.
	files := 0
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		switch {
		case filepath.Base(filepath.Dir(path)) == "outputs":
			// The command's standard output and error, kept as they were:
			// the evidence its checks read.
			want := map[string]string{"exits-0.stdout": evil, "exits-0.stderr": evil, "checked-0.stdout": "x " + evil + "\n"}[d.Name()]
			if string(data) != want {
				t.Errorf("%q holds %q, want the command's output %q", rel, data, want)
			}
			return nil
		case strings.HasSuffix(path, ".json"):
			if !json.Valid(data) {
				t.Errorf("%q is not JSON", rel)
			}
		case strings.HasSuffix(path, ".jsonl"):
			for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				if !json.Valid(line) {
					t.Errorf("%q: a line is not JSON: %q", rel, line)
				}
			}
		}
		termsafetest.Check(t, fmt.Sprintf("%q", rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Errorf("%d files under %s: the run wrote fewer than it should", files, out)
	}
}

// TestOutsideTextIsMadeSafeInStatus: a device's run whose name and
// command hold outside text at its worst is listed by status safely.
func TestOutsideTextIsMadeSafeInStatus(t *testing.T) {
	t.Parallel()
	s := sshTarget(t)
	id := "job\x1b[31m\x07\x7f\u009b\u202e" // one word: the device's list splits on spaces
	job := filepath.Join(s.cache, "corepin", "runs", id)
	if err := os.MkdirAll(job, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(job)
	os.WriteFile(filepath.Join(job, "cmdline"), []byte("/tmp/corepin\nrun\n"+strings.ReplaceAll(evil, "\n", "")+"\n"), 0o644)
	os.WriteFile(filepath.Join(job, "status"), []byte("3\n"), 0o644)
	r := s.corepin(t, t.TempDir(), "--on", s.spec, "status")
	termsafetest.Check(t, "status: its standard output", []byte(r.stdout))
	termsafetest.Check(t, "status: its standard error", []byte(r.stderr))
	if r.code != 0 || !strings.Contains(r.stdout, `job\e[31m\x07\x7f\x9b\u{202e}`) || !strings.Contains(r.stdout, `corepin run \e[31m,"\x0d\x07`) {
		t.Errorf("status: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestReportReadsOnlyInsideTheFolder: a results folder whose telemetry
// file is a symbolic link to a file only root may read, outside the
// folder, gets a page without that file's content; so does one whose
// run.json is such a link, which is refused.
func TestReportReadsOnlyInsideTheFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.csv")
	os.WriteFile(secret, []byte("t_s,cpu,util_pct,freq_mhz,freq_source\n0.1,0,50,1000,TOPSECRET\n"), 0o600)
	folder := filepath.Join(dir, "results")
	if err := os.CopyFS(folder, os.DirFS("../../results/testdata/merge/cpu0")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(folder, "telemetry"), 0o755)
	for i := range 3 {
		os.Symlink(secret, filepath.Join(folder, "telemetry", fmt.Sprintf("fib-%d.csv", i)))
	}
	if _, stderr, code := checkedCorepin(t, "report", folder); code != 0 {
		t.Fatalf("report: exit %d, %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(folder, "report.html"))
	if err != nil || bytes.Contains(page, []byte("TOPSECRET")) || !bytes.Contains(page, []byte("telemetry unreadable")) {
		t.Errorf("the page holds the linked file's content, or does not say the telemetry is unreadable (%v)", err)
	}
	linked := filepath.Join(dir, "linked")
	os.Mkdir(linked, 0o755)
	os.Symlink(filepath.Join(folder, "run.json"), filepath.Join(linked, "run.json"))
	if _, stderr, code := checkedCorepin(t, "report", linked); code != exitFailure || !strings.Contains(stderr, "reading results") {
		t.Errorf("report of a folder whose run.json links out of it: exit %d, %s", code, stderr)
	}
}
