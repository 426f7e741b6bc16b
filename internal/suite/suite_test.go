package suite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

const good = `
[settings]
runs = 3
warmup = 0

[[benchmark]]
name = "echo"
cmd = "sh"
args = ["-c", "echo 3.14159 ok"]
timeout = "30s"
reference_seconds = 0.01

  [[benchmark.check]]
  stdout = true
  regex = "ok$"
`

func TestParseGood(t *testing.T) {
	s, err := Parse("good.toml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	b := s.Benchmarks[0]
	if s.Settings.Runs != 3 || *s.Settings.Warmup != 0 || b.Name != "echo" || b.Timeout.Seconds() != 30 || len(b.Checks) != 1 {
		t.Errorf("parsed %+v", s)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	tests := []struct {
		name, text, want string
		line             int
	}{
		{"syntax", "[[benchmark]]\nname = \"x\"\ncmd = \n", "", 3},
		{"unknown key", "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\nrusn = 3\n", `unknown key "benchmark.rusn"`, 4},
		{"unknown check key", "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\n[[benchmark.check]]\nstdout = true\nregex = \"a\"\nrel_tol = 1\n", "rel_tol", 7},
		{"bad duration", "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\ntimeout = \"soon\"\n", "not a duration", 4},
	}
	for _, tt := range tests {
		_, err := Parse("s.toml", []byte(tt.text))
		var se *Error
		if !errors.As(err, &se) || se.Line != tt.line || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "s.toml:") {
			t.Errorf("%s: %v (line %d), want line %d and %q", tt.name, err, lineOf(se), tt.line, tt.want)
		}
	}
}

func lineOf(e *Error) int {
	if e == nil {
		return -1
	}
	return e.Line
}

func TestValidate(t *testing.T) {
	for name, text := range map[string]string{
		"no benchmark":  "[settings]\nruns = 1\n",
		"no name":       "[[benchmark]]\ncmd = \"true\"\n",
		"no cmd":        "[[benchmark]]\nname = \"x\"\n",
		"twice":         "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\n[[benchmark]]\nname = \"x\"\ncmd = \"true\"\n",
		"bad name":      "[[benchmark]]\nname = \"a/b\"\ncmd = \"true\"\n",
		"two kinds":     "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\n[[benchmark.check]]\nstdout = true\nregex = \"a\"\nsha256 = \"" + strings.Repeat("0", 64) + "\"\n",
		"no subject":    "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\n[[benchmark.check]]\nregex = \"a\"\n",
		"bad regex":     "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\n[[benchmark.check]]\nstdout = true\nregex = \"(\"\n",
		"short sha":     "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\n[[benchmark.check]]\nstdout = true\nsha256 = \"abc\"\n",
		"negative runs": "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\nruns = -1\n",
		"many checks":   "[[benchmark]]\nname = \"x\"\ncmd = \"true\"\n" + strings.Repeat("[[benchmark.check]]\nstdout = true\nregex = \"a\"\n", MaxChecks+1),
	} {
		if _, err := Parse("s.toml", []byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestLookCommands(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.toml")
	s, err := Parse(path, []byte("[[benchmark]]\nname = \"a\"\ncmd = \"true\"\n[[benchmark]]\nname = \"b\"\ncmd = \"./missing\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.LookCommands(); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("a missing command: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "missing"), []byte("#!/bin/sh\n"), 0o755)
	if _, err := s.LookCommands(); err != nil {
		t.Errorf("after creating it: %v", err)
	}
}

func TestCompare(t *testing.T) {
	ref := "# run 1\nenergy 1.000000 steps 100\nresult: PASS\n"
	tests := []struct {
		name string
		c    Check
		got  string
		ok   bool
	}{
		{"same", Check{}, ref, true},
		{"white space", Check{}, "# run 1\nenergy   1.000000\tsteps 100\nresult: PASS\n", true},
		{"within reltol", Check{RelTol: 1e-4}, "# run 1\nenergy 1.00005 steps 100\nresult: PASS\n", true},
		{"outside reltol", Check{RelTol: 1e-6}, "# run 1\nenergy 1.00005 steps 100\nresult: PASS\n", false},
		{"within abstol", Check{AbsTol: 0.01}, "# run 1\nenergy 1.005 steps 100\nresult: PASS\n", true},
		{"skiptol", Check{SkipTol: 1}, "# run 1\nenergy 2 steps 100\nresult: PASS\n", true},
		{"word differs", Check{RelTol: 1}, "# run 1\nenergy 1.0 steps 100\nresult: FAIL\n", false},
		{"skipped line", Check{SkipLines: []string{"^#"}}, "# run 2\nenergy 1.000000 steps 100\nresult: PASS\n", true},
		{"missing line", Check{}, "# run 1\nenergy 1.000000 steps 100\n", false},
		{"ignore case", Check{IgnoreCase: true}, "# RUN 1\nENERGY 1.000000 steps 100\nresult: pass\n", true},
	}
	for _, tt := range tests {
		detail := tt.c.Compare(ref, tt.got)
		if (detail == "") != tt.ok {
			t.Errorf("%s: detail %q, want ok=%v", tt.name, detail, tt.ok)
		}
		if !tt.ok && !strings.Contains(detail, "line ") {
			t.Errorf("%s: %q does not say which line", tt.name, detail)
		}
	}
}

func TestRunChecks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ref.txt"), []byte("x 1.0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "out.txt"), []byte("x 1.1\n"), 0o644)
	s := &Suite{Path: filepath.Join(dir, "s.toml")}
	out := Output{Stdout: filepath.Join(dir, "stdout"), Stderr: filepath.Join(dir, "stderr"), Dir: dir}
	os.WriteFile(out.Stdout, []byte("hello\n"), 0o644)
	os.WriteFile(out.Stderr, []byte("Nodes searched  : 12345\n"), 0o644)
	for _, tt := range []struct {
		c  Check
		ok bool
	}{
		{Check{Stdout: true, SHA256: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"}, true},
		{Check{Stdout: true, Regex: "^hel"}, true},
		{Check{Stdout: true, Regex: "^bye"}, false},
		{Check{Stdout: true, Regex: "^hello$"}, true}, // output ends with a newline
		{Check{File: "out.txt", Expected: "ref.txt", RelTol: 0.2}, true},
		{Check{File: "out.txt", Expected: "ref.txt", RelTol: 0.01}, false},
		{Check{File: "nope.txt", Expected: "ref.txt"}, false},
		// standard error, and both streams, stdout first
		{Check{Stderr: true, Regex: `^Nodes searched\s*:\s*12345$`}, true},
		{Check{Stdout: true, Regex: `^Nodes`}, false},
		{Check{Stdout: true, Stderr: true, Regex: `^Nodes`}, true},
		{Check{Stdout: true, Stderr: true, Regex: `^hello$`}, true},
		{Check{Stdout: true, Stderr: true, SHA256: "d9226f9619a5641414927e369a9d4a4748be4ebadd198c738ad9fce065848ece"}, true},
		{Check{Stderr: true, SHA256: "d9226f9619a5641414927e369a9d4a4748be4ebadd198c738ad9fce065848ece"}, false},
		// a round trip: the output's digest is its input's
		{Check{File: "out.txt", SHA256Of: "out.txt"}, true},
		{Check{File: "out.txt", SHA256Of: "ref.txt"}, false},
		{Check{Stdout: true, SHA256Of: "nope.txt"}, false},
	} {
		if o := tt.c.RunFile(s, out); o.Passed != tt.ok {
			t.Errorf("%+v: %+v", tt.c, o)
		}
	}
}

func FuzzCompare(f *testing.F) {
	f.Add("a 1.0\nb 2\n", "a 1.00001\nb 2\n", 1e-3)
	f.Add("", "\n\n", 0.0)
	f.Fuzz(func(t *testing.T, want, got string, tol float64) {
		c := Check{RelTol: tol, SkipLines: []string{"^#"}}
		if c.Compare(want, want) != "" {
			t.Fatalf("%q differs from itself", want)
		}
		c.Compare(want, got)
	})
}

func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add("[[benchmark]]\nname=1")
	f.Fuzz(func(t *testing.T, text string) {
		Parse("f.toml", []byte(text))
	})
}

// The example in docs/examples parses, and its commands exist here.
func TestExampleSuite(t *testing.T) {
	s, err := Load("../../docs/examples/suite.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Benchmarks) != 2 || s.Settings.Runs != 6 {
		t.Errorf("example suite: %+v", s)
	}
	if _, err := s.LookCommands(); err != nil {
		t.Skip("a command of the example is missing here: ", err)
	}
}

// An outcome is kept with every run: the suite's text in it (a long
// regular expression, a path) and the output's (a long differing word)
// are clipped to MaxOutcomeText.
func TestOutcomesAreBounded(t *testing.T) {
	dir := t.TempDir()
	s := &Suite{Path: filepath.Join(dir, "s.toml")}
	long := strings.Repeat("é", 1<<16)
	out, ref := filepath.Join(dir, "out"), filepath.Join(dir, "ref")
	os.WriteFile(out, []byte(long+"a\n"), 0o644)
	os.WriteFile(ref, []byte(long+"b\n"), 0o644)
	for _, c := range []Check{
		{Stdout: true, Regex: "z" + long},
		{Stdout: true, Expected: ref, CollapseWhitespace: new(bool)},
		{Stdout: true, Expected: ref},
		{File: long, Regex: "a"},
	} {
		o := c.RunFile(s, Output{Stdout: out, Dir: dir})
		if o.Passed || o.Detail == "" {
			t.Fatalf("check passed: %.40s", o.What)
		}
		for _, text := range []string{o.What, o.Detail} {
			if len(text) > MaxOutcomeText+len("…") || !utf8.ValidString(text) {
				t.Errorf("outcome text of %d bytes (valid UTF-8 %v): %.40s…", len(text), utf8.ValidString(text), text)
			}
		}
	}
}

// A suite's identity is its file's content: the same file read from two
// places is one suite; a benchmark of the same name defined otherwise is
// another.
func TestSuiteIdentity(t *testing.T) {
	one := "[[benchmark]]\nname = \"fib\"\ncmd = \"./fib\"\nargs = [\"30\"]\n"
	other := strings.Replace(one, "30", "40", 1)
	a, err := Parse("/a/lab.toml", []byte(one))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("/b/lab.toml", []byte(one))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("/a/lab.toml", []byte(other))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.SHA256) != 64 || a.SHA256 != b.SHA256 || a.SHA256 == c.SHA256 {
		t.Errorf("identities %q, %q (the same file elsewhere), %q (another fib)", a.SHA256, b.SHA256, c.SHA256)
	}
}
