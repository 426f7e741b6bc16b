// Package suite reads benchmark suite files: TOML that says which commands
// to run, how, how often, how long they took on a reference machine, and
// how to check their output. Reading is strict: an unknown key is an error
// that names its line, so a typo never silently drops a check.
//
//	[settings]
//	runs = 5
//	warmup = 1
//
//	[[benchmark]]
//	name = "mcf"
//	cmd = "./mcf_r"
//	args = ["inp.in"]
//	dir = "run/505.mcf_r"
//	env = { OMP_NUM_THREADS = "1" }
//	stdin = "inp.in"
//	timeout = "10m"
//	reference_seconds = 295.2
//
//	  [[benchmark.check]]
//	  file = "inp.out"          # or stdout = true
//	  expected = "ref/inp.out"  # compared number by number
//	  reltol = 1e-4
//	  abstol = 1e-7
//
//	  [[benchmark.check]]
//	  stdout = true
//	  regex = "checksum: 0x[0-9a-f]+"
package suite

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Suite is a parsed suite file.
type Suite struct {
	Path       string      `toml:"-"`
	Settings   Settings    `toml:"settings"`
	Benchmarks []Benchmark `toml:"benchmark"`
}

// Settings are defaults for every benchmark.
type Settings struct {
	Runs    int      `toml:"runs"`
	Warmup  *int     `toml:"warmup"`
	Timeout Duration `toml:"timeout"`
}

// Benchmark is one command to measure.
type Benchmark struct {
	Name             string            `toml:"name"`
	Cmd              string            `toml:"cmd"`
	Args             []string          `toml:"args"`
	Dir              string            `toml:"dir"`
	Env              map[string]string `toml:"env"`
	Stdin            string            `toml:"stdin"`
	Timeout          Duration          `toml:"timeout"`
	Runs             int               `toml:"runs"`
	ReferenceSeconds float64           `toml:"reference_seconds"`
	Checks           []Check           `toml:"check"`
}

// Duration is a TOML string such as "90s" or "10m".
type Duration struct{ time.Duration }

// UnmarshalText reads a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 90s or 10m", b)
	}
	d.Duration = v
	return nil
}

// Check is one output check. Exactly one of Expected, SHA256 and Regex is
// set, on standard output (Stdout) or a file the command writes (File).
type Check struct {
	Stdout bool   `toml:"stdout"`
	File   string `toml:"file"`
	// Expected is a reference file compared number by number, as SPEC's
	// specdiff does: a number passes when it is within AbsTol or RelTol
	// of the reference; other words must match exactly.
	Expected           string   `toml:"expected"`
	AbsTol             float64  `toml:"abstol"`
	RelTol             float64  `toml:"reltol"`
	SkipTol            int      `toml:"skiptol"`             // numbers allowed out of tolerance
	SkipLines          []string `toml:"skip_lines"`          // regular expressions of lines to ignore
	CollapseWhitespace *bool    `toml:"collapse_whitespace"` // true unless set to false
	IgnoreCase         bool     `toml:"ignore_case"`
	SHA256             string   `toml:"sha256"`
	Regex              string   `toml:"regex"` // ^ and $ match at each line's start and end
}

// Error is a problem in a suite file, with its place.
type Error struct {
	Path      string
	Line, Col int // 0 when the problem has no one place
	Msg       string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Load reads and checks a suite file. Relative paths in it are relative
// to the file's folder.
func Load(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading suite: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a suite from data; path names it in errors and anchors its
// relative paths.
func Parse(path string, data []byte) (*Suite, error) {
	var s Suite
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, tomlError(path, data, err)
	}
	s.Path = path
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

func tomlError(path string, data []byte, err error) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		first := sm.Errors[0]
		row, col := first.Position()
		return &Error{Path: path, Line: row, Col: col, Msg: fmt.Sprintf("unknown key %q", joinKey(first.Key()))}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return &Error{Path: path, Line: row, Col: col, Msg: de.Error()}
	}
	return &Error{Path: path, Msg: err.Error()}
}

func joinKey(k []string) string {
	out := ""
	for i, p := range k {
		if i > 0 {
			out += "."
		}
		out += p
	}
	return out
}

func (s *Suite) validate() error {
	fail := func(format string, a ...any) error { return &Error{Path: s.Path, Msg: fmt.Sprintf(format, a...)} }
	if len(s.Benchmarks) == 0 {
		return fail("no [[benchmark]] in the suite")
	}
	if s.Settings.Runs < 0 || (s.Settings.Warmup != nil && *s.Settings.Warmup < 0) {
		return fail("settings: runs and warmup must not be negative")
	}
	seen := map[string]bool{}
	for i, b := range s.Benchmarks {
		where := fmt.Sprintf("benchmark %d", i+1)
		if b.Name != "" {
			where = fmt.Sprintf("benchmark %q", b.Name)
		}
		switch {
		case b.Name == "":
			return fail("%s: name is missing", where)
		case !validName().MatchString(b.Name):
			return fail("%s: a name may hold letters, digits, '.', '_' and '-' only", where)
		case seen[b.Name]:
			return fail("%s: the name is used twice", where)
		case b.Cmd == "":
			return fail("%s: cmd is missing", where)
		case b.Runs < 0 || b.ReferenceSeconds < 0:
			return fail("%s: runs and reference_seconds must not be negative", where)
		}
		seen[b.Name] = true
		for j, c := range b.Checks {
			if err := c.validate(); err != nil {
				return fail("%s, check %d: %v", where, j+1, err)
			}
		}
	}
	return nil
}

// validName is compiled on first use, not at start: corepin exec, which
// never reads a suite, starts without it.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+$`) })

func (c Check) validate() error {
	kinds := 0
	for _, set := range []bool{c.Expected != "", c.SHA256 != "", c.Regex != ""} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds != 1:
		return errors.New("give exactly one of expected, sha256 and regex")
	case c.Stdout == (c.File != ""):
		return errors.New("give exactly one of stdout = true and file")
	case c.AbsTol < 0 || c.RelTol < 0 || c.SkipTol < 0:
		return errors.New("tolerances must not be negative")
	case c.SHA256 != "" && !regexp.MustCompile(`^[0-9a-fA-F]{64}$`).MatchString(c.SHA256):
		return errors.New("sha256 must be 64 hex digits")
	}
	if c.Regex != "" {
		if _, err := regexp.Compile(c.Regex); err != nil {
			return fmt.Errorf("regex: %w", err)
		}
	}
	for _, s := range c.SkipLines {
		if _, err := regexp.Compile(s); err != nil {
			return fmt.Errorf("skip_lines: %w", err)
		}
	}
	return nil
}

// Resolve turns a path from the suite into one usable from here.
func (s *Suite) Resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(s.Path), p)
}

// WorkDir is the folder a benchmark runs in.
func (s *Suite) WorkDir(b Benchmark) string {
	if b.Dir == "" {
		return filepath.Dir(s.Path)
	}
	return s.Resolve(b.Dir)
}

// LookCommands checks, before anything runs, that every command exists
// and is executable, so that a typo costs nothing.
func (s *Suite) LookCommands() error {
	for _, b := range s.Benchmarks {
		cmd := b.Cmd
		if filepath.Base(cmd) != cmd && !filepath.IsAbs(cmd) {
			cmd = filepath.Join(s.WorkDir(b), cmd)
		}
		if _, err := exec.LookPath(cmd); err != nil {
			return &Error{Path: s.Path, Msg: fmt.Sprintf("benchmark %q: command %s: %v", b.Name, b.Cmd, err)}
		}
		if b.Stdin != "" {
			if _, err := os.Stat(s.Resolve(b.Stdin)); err != nil {
				return &Error{Path: s.Path, Msg: fmt.Sprintf("benchmark %q: stdin: %v", b.Name, err)}
			}
		}
	}
	return nil
}
