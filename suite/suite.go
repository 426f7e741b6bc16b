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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"

	"corepin.dev/corepin/internal/inputfile"
)

// Suite is a parsed suite file.
type Suite struct {
	Path string `toml:"-"`
	// SHA256 is the hex SHA-256 of the file as read: the suite's identity,
	// which every benchmark's definition is part of, wherever the file is.
	SHA256     string      `toml:"-"`
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

// Bounds of a suite. A suite is a short list of commands; what is far
// beyond these is a mistake that would cost memory or time for nothing.
const (
	MaxFileSize   = 1 << 20 // bytes of a suite file
	MaxBenchmarks = 1000
	// MaxTotalRuns bounds the runs and warm-ups of all the benchmarks
	// together that one corepin run makes, however they are asked for
	// (the suite's settings, the command line): each adds its record to
	// run.json and the journal (results.MaxRecordBytes at most), which so
	// stay readable. The runner refuses a run beyond it.
	MaxTotalRuns = 2000
	MaxRuns      = MaxTotalRuns // runs (or warm-ups) of one benchmark
	// MaxChecks bounds the output checks of one benchmark: each run keeps
	// every check's outcome.
	MaxChecks = 16
	// MaxNameLen leaves room, within a file system's 255-byte names, for
	// what corepin adds to a benchmark's name in its files
	// ("-123456.stdout", "-123456.csv").
	MaxNameLen = 200
)

// Load reads and checks a suite file. Relative paths in it are relative
// to the file's folder.
func Load(path string) (*Suite, error) {
	f, err := inputfile.Open(path) // a FIFO must not hang the open
	if err != nil {
		return nil, fmt.Errorf("reading suite: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading suite: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, &Error{Path: path, Msg: fmt.Sprintf("the file is larger than %d KiB: a suite file lists commands, not data", MaxFileSize>>10)}
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
	// The folder anchors "./prog" and every other relative path, so it is
	// made absolute at once: a relative one ("suite.toml") would leave
	// "./prog" as "prog", which exec looks up in $PATH.
	s.Path = path
	sum := sha256.Sum256(data)
	s.SHA256 = hex.EncodeToString(sum[:])
	if abs, err := filepath.Abs(path); err == nil {
		s.Path = abs
	}
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
	if len(s.Benchmarks) > MaxBenchmarks {
		return fail("%d benchmarks: at most %d", len(s.Benchmarks), MaxBenchmarks)
	}
	if s.Settings.Runs < 0 || (s.Settings.Warmup != nil && *s.Settings.Warmup < 0) {
		return fail("settings: runs and warmup must not be negative")
	}
	if s.Settings.Runs > MaxRuns || (s.Settings.Warmup != nil && *s.Settings.Warmup > MaxRuns) {
		return fail("settings: at most %d runs and warm-ups", MaxRuns)
	}
	if s.Settings.Timeout.Duration < 0 {
		return fail("settings: timeout %v is negative", s.Settings.Timeout.Duration)
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
		case len(b.Name) > MaxNameLen:
			return fail("benchmark %d: the name is %d bytes long; at most %d, as it names files", i+1, len(b.Name), MaxNameLen)
		case !validName().MatchString(b.Name):
			return fail("%s: a name may hold letters, digits, '.', '_' and '-' only", where)
		case seen[b.Name]:
			return fail("%s: the name is used twice", where)
		case b.Cmd == "":
			return fail("%s: cmd is missing", where)
		case b.Runs < 0 || b.ReferenceSeconds < 0:
			return fail("%s: runs and reference_seconds must not be negative", where)
		case b.Runs > MaxRuns:
			return fail("%s: %d runs; at most %d", where, b.Runs, MaxRuns)
		case math.IsNaN(b.ReferenceSeconds) || math.IsInf(b.ReferenceSeconds, 0):
			return fail("%s: reference_seconds must be a number of seconds, not %v", where, b.ReferenceSeconds)
		case b.Timeout.Duration < 0:
			return fail("%s: timeout %v is negative", where, b.Timeout.Duration)
		case strings.ContainsRune(b.Cmd, 0) || slices.ContainsFunc(b.Args, func(a string) bool { return strings.ContainsRune(a, 0) }):
			return fail("%s: cmd and args cannot hold a NUL byte", where)
		}
		for k, v := range b.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
				return fail("%s: env key %q: a variable's name cannot be empty or hold '=' or NUL, nor its value NUL", where, k)
			}
		}
		seen[b.Name] = true
		if len(b.Checks) > MaxChecks {
			return fail("%s: %d checks; at most %d", where, len(b.Checks), MaxChecks)
		}
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
	case c.AbsTol < 0 || c.RelTol < 0 || c.SkipTol < 0 || math.IsNaN(c.AbsTol) || math.IsNaN(c.RelTol) || math.IsInf(c.AbsTol, 0) || math.IsInf(c.RelTol, 0):
		return errors.New("tolerances must be numbers, not negative")
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

// CommandPath is the program a benchmark runs: a bare name is looked up
// in $PATH, anything with a slash is relative to the benchmark's folder.
func (s *Suite) CommandPath(b Benchmark) string {
	if filepath.Base(b.Cmd) != b.Cmd && !filepath.IsAbs(b.Cmd) {
		return filepath.Join(s.WorkDir(b), b.Cmd)
	}
	return b.Cmd
}

// LookCommands checks, before anything runs, that every command exists
// and is executable, and that every folder and expected file is there,
// so that a typo costs nothing.
func (s *Suite) LookCommands() error {
	for _, b := range s.Benchmarks {
		if _, err := exec.LookPath(s.CommandPath(b)); err != nil {
			return &Error{Path: s.Path, Msg: fmt.Sprintf("benchmark %q: command %s: %v", b.Name, b.Cmd, err)}
		}
		if b.Stdin != "" {
			if _, err := os.Stat(s.Resolve(b.Stdin)); err != nil {
				return &Error{Path: s.Path, Msg: fmt.Sprintf("benchmark %q: stdin: %v", b.Name, err)}
			}
		}
		if st, err := os.Stat(s.WorkDir(b)); err != nil || !st.IsDir() {
			return &Error{Path: s.Path, Msg: fmt.Sprintf("benchmark %q: dir %s is not a folder", b.Name, s.WorkDir(b))}
		}
		for j, c := range b.Checks {
			if c.Expected == "" {
				continue
			}
			if _, err := os.Stat(s.Resolve(c.Expected)); err != nil {
				return &Error{Path: s.Path, Msg: fmt.Sprintf("benchmark %q, check %d: expected: %v", b.Name, j+1, err)}
			}
		}
	}
	return nil
}
