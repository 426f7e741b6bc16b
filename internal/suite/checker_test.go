package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stderrRun writes one run's standard error and returns its output.
func stderrRun(t *testing.T, dir, stderr string) Output {
	t.Helper()
	out := Output{Stdout: filepath.Join(dir, "stdout"), Stderr: filepath.Join(dir, "stderr"), Dir: dir}
	os.WriteFile(out.Stdout, nil, 0o644)
	os.WriteFile(out.Stderr, []byte(stderr), 0o644)
	return out
}

func signatureSuite(t *testing.T, known string) *Suite {
	t.Helper()
	s, err := Parse("s.toml", []byte(`[[benchmark]]
name = "chess"
cmd = "true"
version = ["true"]
  [[benchmark.check]]
  stderr = true
  signature = 'Nodes searched\s*:\s*(\d+)'
  `+known+`
`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A signature the suite knows for the version: the right one passes, a
// wrong one fails with both values in the message.
func TestKnownSignature(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	s := signatureSuite(t, `known = { "Chess 1.0" = "858555" }`)
	k := s.NewChecker(s.Benchmarks[0], "Chess 1.0", nil)
	if o := k.Check(stderrRun(t, dir, "Nodes searched  : 858555\n"))[0]; !o.Passed || !strings.Contains(o.Detail, "858555") {
		t.Errorf("the known signature: %+v", o)
	}
	wrong := signatureSuite(t, `known = { "Chess 1.0" = "999999" }`)
	k = wrong.NewChecker(wrong.Benchmarks[0], "Chess 1.0", nil)
	o := k.Check(stderrRun(t, dir, "Nodes searched  : 858555\n"))[0]
	if o.Passed || !strings.Contains(o.Detail, "858555") || !strings.Contains(o.Detail, "999999") {
		t.Errorf("a wrong signature: %+v", o)
	}
}

// Without a known value the first run records it; later runs, in this
// corepin run or another, are held to it; another version records anew.
func TestRecordedSignature(t *testing.T) {
	dir := t.TempDir()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	s := signatureSuite(t, "")
	k := s.NewChecker(s.Benchmarks[0], "Chess 2.0", nil)
	if o := k.Check(stderrRun(t, dir, "Nodes searched  : 100\n"))[0]; !o.Passed || !strings.Contains(o.Detail, "recorded now") {
		t.Fatalf("first run: %+v", o)
	}
	if o := k.Check(stderrRun(t, dir, "Nodes searched  : 101\n"))[0]; o.Passed || !strings.Contains(o.Detail, "is 101; recorded") || !strings.Contains(o.Detail, ": 100") {
		t.Errorf("a second run that differs: %+v", o)
	}
	later := s.NewChecker(s.Benchmarks[0], "Chess 2.0", nil) // another corepin run
	if o := later.Check(stderrRun(t, dir, "Nodes searched  : 101\n"))[0]; o.Passed || !strings.Contains(o.Detail, "100") || !strings.Contains(o.Detail, "101") {
		t.Errorf("a later run that differs from the record: %+v", o)
	}
	if o := later.Check(stderrRun(t, dir, "Nodes searched  : 100\n"))[0]; !o.Passed {
		t.Errorf("a later run as recorded: %+v", o)
	}
	other := s.NewChecker(s.Benchmarks[0], "Chess 3.0", nil)
	if o := other.Check(stderrRun(t, dir, "Nodes searched  : 101\n"))[0]; !o.Passed || !strings.Contains(o.Detail, "recorded now") {
		t.Errorf("another version: %+v", o)
	}
	unknown := s.NewChecker(s.Benchmarks[0], "", os.ErrNotExist)
	if o := unknown.Check(stderrRun(t, dir, "Nodes searched  : 100\n"))[0]; o.Passed {
		t.Errorf("a signature of no known version passed: %+v", o)
	}
}

// Records someone else could have written are not trusted: a check that
// needs one fails, saying why.
func TestRecordsNotTrusted(t *testing.T) {
	dir := t.TempDir()
	for name, spoil := range map[string]func(records string){
		"a symbolic link": func(records string) {
			os.WriteFile(filepath.Join(dir, "elsewhere.json"), []byte(`{"schema":"corepin.signatures/v1","records":[]}`), 0o600)
			os.Symlink(filepath.Join(dir, "elsewhere.json"), records)
		},
		"written by others": func(records string) {
			os.WriteFile(records, []byte(`{"schema":"corepin.signatures/v1","records":[]}`), 0o600)
			os.Chmod(records, 0o666)
		},
		"not corepin's": func(records string) {
			os.WriteFile(records, []byte(`[1, 2]`), 0o600)
		},
	} {
		state := t.TempDir()
		t.Setenv("XDG_STATE_HOME", state)
		os.MkdirAll(filepath.Join(state, "corepin"), 0o700)
		spoil(filepath.Join(state, "corepin", "signatures.json"))
		s := signatureSuite(t, "")
		k := s.NewChecker(s.Benchmarks[0], "Chess 2.0", nil)
		if o := k.Check(stderrRun(t, dir, "Nodes searched  : 100\n"))[0]; o.Passed || !strings.Contains(o.Detail, "signatures.json") {
			t.Errorf("%s: %+v", name, o)
		}
	}
}

// A recorded digest of a file: a compiler's assembly.
func TestRecordedDigest(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	s, err := Parse("s.toml", []byte("[[benchmark]]\nname = \"cc\"\ncmd = \"true\"\nversion = [\"true\"]\n  [[benchmark.check]]\n  file = \"a.s\"\n  sha256 = \"recorded\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := Output{Dir: dir}
	os.WriteFile(filepath.Join(dir, "a.s"), []byte("mov $1, %eax\n"), 0o644)
	k := s.NewChecker(s.Benchmarks[0], "cc 1", nil)
	if o := k.Check(out)[0]; !o.Passed {
		t.Fatalf("first run: %+v", o)
	}
	os.WriteFile(filepath.Join(dir, "a.s"), []byte("mov $2, %eax\n"), 0o644)
	if o := s.NewChecker(s.Benchmarks[0], "cc 1", nil).Check(out)[0]; o.Passed {
		t.Errorf("another assembly passed: %+v", o)
	}
}
