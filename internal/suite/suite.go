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
//
// Real programs need more (suites/real.toml uses all of it): a check or
// a metric on standard error (stderr = true; both streams with stdout =
// true too); a metric, a number the output prints that the benchmark is
// judged by, with its unit and which way is better (its wall time is
// kept beside); inputs corepin makes, the same bytes everywhere, in each
// benchmark's own work folder (work = true); the programs a benchmark
// needs, and the Debian package that has them, so that a machine without
// them skips it; a version command, whose line keys the signatures that
// must stay what they were for that version; and folders searched after
// $PATH:
//
//	[settings]
//	work = true
//	path = ["/usr/games"]
//
//	[[benchmark]]
//	name = "stockfish"
//	cmd = "stockfish"
//	args = ["bench", "16", "1", "12"]
//	package = "stockfish"         # or install = "how to get it"
//	requires = []                 # programs a shell command calls
//	version = ["stockfish"]       # the first line it prints
//
//	  [[benchmark.check]]
//	  stderr = true
//	  signature = 'Nodes searched\s*:\s*(\d+)'   # the same every run
//	  known = { "Stockfish 15.1 by the Stockfish developers (see AUTHORS file)" = "2274046" }
//
//	  [benchmark.metric]
//	  stderr = true
//	  regex = 'Nodes/second\s*:\s*(\d+)'   # the last line that matches
//	  name = "Nodes/second"
//	  unit = "nodes/s"
//	  better = "higher"
//
//	[[benchmark]]
//	name = "zstd"
//	cmd = "sh"
//	args = ["-c", "zstd -q -19 -T1 -f -o text.zst text && zstd -q -d -f -o text.out text.zst"]
//	requires = ["zstd"]
//	package = "zstd"
//
//	  [[benchmark.input]]
//	  file = "text"
//	  text_bytes = 1500000          # or c_functions = N, or content = "…"
//
//	  [[benchmark.check]]
//	  file = "text.out"
//	  sha256_of = "text"            # a round trip gives its input back
//
// A signature with no known value for the installed version, and a check
// with sha256 = "recorded", is held to the value its first run recorded
// in the user's records (see Records).
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
	// work is where Prepare made the inputs: the benchmarks with inputs
	// run in their folders under it.
	work string
}

// Settings are defaults for every benchmark.
type Settings struct {
	Runs    int      `toml:"runs"`
	Warmup  *int     `toml:"warmup"`
	Timeout Duration `toml:"timeout"`
	// Path are folders where programs are looked for after $PATH, and
	// which the commands' $PATH gains: Debian installs games such as
	// Stockfish in /usr/games, which root's $PATH does not hold.
	Path []string `toml:"path"`
	// Work runs every benchmark without a dir in its own folder of the
	// run's work folder, where its inputs are made and what it writes
	// goes, removed when the run ends: a suite of real programs leaves
	// nothing in its own folder, which may be read-only.
	Work bool `toml:"work"`
}

// Benchmark is one command to measure.
type Benchmark struct {
	Name             string            `toml:"name"`
	Description      string            `toml:"description"`
	Cmd              string            `toml:"cmd"`
	Args             []string          `toml:"args"`
	Dir              string            `toml:"dir"`
	Env              map[string]string `toml:"env"`
	Stdin            string            `toml:"stdin"`
	Timeout          Duration          `toml:"timeout"`
	Runs             int               `toml:"runs"`
	ReferenceSeconds float64           `toml:"reference_seconds"`
	Checks           []Check           `toml:"check"`
	// Requires are the programs the benchmark needs beside Cmd (those a
	// shell command calls). Package names the Debian package that
	// provides Cmd and Requires, Install how to get them otherwise; with
	// either, a benchmark whose programs are not installed is skipped,
	// saying so, instead of refusing the suite.
	Requires []string `toml:"requires"`
	Package  string   `toml:"package"`
	Install  string   `toml:"install"`
	// Version is a command whose first line of output names the
	// program's version ("gcc --version"): run once before the runs, it
	// is recorded with the benchmark and keys its signatures.
	Version []string `toml:"version"`
	// Inputs are files corepin makes before the first run, the same
	// bytes everywhere, in the benchmark's own work folder, where it
	// then runs (see Prepare).
	Inputs []Input `toml:"input"`
	// Metric is a number the output prints that the benchmark is judged
	// by instead of its wall time (which is kept too).
	Metric *Metric `toml:"metric"`
	// CPUs is "group" for work of several threads: it runs on the
	// target's performance group, not its one CPU.
	CPUs string `toml:"cpus"`
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

// Check is one output check. Exactly one of Expected, SHA256, SHA256Of,
// Regex and Signature is set, on standard output (Stdout), standard error
// (Stderr), both (stdout followed by stderr), or a file the command
// writes (File).
type Check struct {
	Stdout bool   `toml:"stdout"`
	Stderr bool   `toml:"stderr"`
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
	// Obiwan lets a number differ by one in its last digit, as specdiff's
	// --obiwan (which its tolerances turn on): 1.2345 for 1.2346.
	Obiwan bool `toml:"obiwan"`
	// SHA256 is the output's digest, or "recorded": the digest the
	// first run for the program's version gave (see Records).
	SHA256 string `toml:"sha256"`
	// SHA256Of is a file (in the benchmark's folder) whose digest the
	// output's must equal: a round trip's input.
	SHA256Of string `toml:"sha256_of"`
	Regex    string `toml:"regex"` // ^ and $ match at each line's start and end
	// Signature is a regular expression with one group: the text it
	// captures (on the last line that matches) is the output's signature,
	// the same in every run; equal to Known's value for the program's
	// version where the suite knows it, else to the one first recorded.
	Signature string `toml:"signature"`
	// Known are the signatures (or digests, with sha256 = "recorded")
	// known for versions of the program, by its version line.
	Known map[string]string `toml:"known"`
}

// Recorded is the value of sha256 that asks for the digest first recorded
// for the program's version.
const Recorded = "recorded"

// Input is a file corepin makes for a benchmark: exactly one of
// TextBytes, CFunctions and Content says what it holds.
type Input struct {
	File string `toml:"file"`
	// TextBytes is the size of generated text: words and lines of a
	// fixed vocabulary, compressible as prose is.
	TextBytes int64 `toml:"text_bytes"`
	// CFunctions is the number of functions of a generated C program.
	CFunctions int `toml:"c_functions"`
	// Content is the file's text as it is.
	Content *string `toml:"content"`
}

// Metric is a number a run's output prints, which its benchmark is
// judged by: the last line matching Regex gives it (its one group), or,
// with Geekbench, the score or multicore_score of the Geekbench export
// File. Name, Unit and Better say what it is; Reference is its value on
// the reference machine.
type Metric struct {
	Stdout    bool     `toml:"stdout"`
	Stderr    bool     `toml:"stderr"`
	File      string   `toml:"file"`
	Regex     string   `toml:"regex"`
	Geekbench string   `toml:"geekbench"`
	Name      string   `toml:"name"`
	Unit      string   `toml:"unit"`
	Better    string   `toml:"better"`
	Reference *float64 `toml:"reference"`
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
	for _, b := range s.Benchmarks {
		if b.Metric != nil {
			b.Metric.fillDefaults()
		}
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
		if len(b.Inputs) > 0 && !s.Settings.Work {
			return fail("%s: inputs are made in the benchmark's work folder: set work = true in [settings]", where)
		}
		if err := b.validateWork(); err != nil {
			return fail("%s: %v", where, err)
		}
		if len(b.Checks) > MaxChecks {
			return fail("%s: %d checks; at most %d", where, len(b.Checks), MaxChecks)
		}
		for j, c := range b.Checks {
			if err := c.validate(len(b.Version) > 0); err != nil {
				return fail("%s, check %d: %v", where, j+1, err)
			}
		}
	}
	for _, p := range s.Settings.Path {
		if !filepath.IsAbs(p) || strings.ContainsAny(p, string(filepath.ListSeparator)+"\x00") {
			return fail("settings: path %q: give absolute folders, without %q", p, filepath.ListSeparator)
		}
	}
	return nil
}

// validName is compiled on first use, not at start: corepin exec, which
// never reads a suite, starts without it.
var validName = lazyRE(`^[A-Za-z0-9._-]+$`)

// lazyRE is a regular expression compiled on its first use.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

func (c Check) validate(hasVersion bool) error {
	kinds := 0
	for _, set := range []bool{c.Expected != "", c.SHA256 != "", c.SHA256Of != "", c.Regex != "", c.Signature != ""} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds != 1:
		return errors.New("give exactly one of expected, sha256, sha256_of, regex and signature")
	case (c.Stdout || c.Stderr) == (c.File != ""):
		return errors.New("give exactly one of stdout = true (or stderr = true, or both) and file")
	case c.AbsTol < 0 || c.RelTol < 0 || c.SkipTol < 0 || math.IsNaN(c.AbsTol) || math.IsNaN(c.RelTol) || math.IsInf(c.AbsTol, 0) || math.IsInf(c.RelTol, 0):
		return errors.New("tolerances must be numbers, not negative")
	case c.SHA256 != "" && c.SHA256 != Recorded && !hexDigest(c.SHA256):
		return errors.New(`sha256 must be 64 hex digits, or "recorded"`)
	case c.records() && !hasVersion:
		return errors.New("a signature or a recorded sha256 is the program's version's: give the benchmark a version command")
	case len(c.Known) > 0 && !c.records():
		return errors.New("known signatures go with signature or sha256 = \"recorded\"")
	case c.SHA256Of != "" && !filepath.IsLocal(c.SHA256Of):
		return fmt.Errorf("sha256_of %q: give a file of the benchmark's folder", c.SHA256Of)
	}
	for v, known := range c.Known {
		if v == "" || len(v) > MaxVersionLen || known == "" || (c.SHA256 == Recorded && !hexDigest(known)) {
			return fmt.Errorf("known: version %q: give a version line of at most %d bytes and its signature (a digest of 64 hex digits for sha256)", v, MaxVersionLen)
		}
	}
	if c.Signature != "" {
		if err := oneGroup("signature", c.Signature); err != nil {
			return err
		}
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

// madeInWork reports whether the benchmark's folder is made by Prepare.
func (s *Suite) madeInWork(b Benchmark) bool { return s.Settings.Work && b.Dir == "" }

// records reports whether the check holds a value recorded per version of
// the program: a signature, or a recorded digest.
func (c Check) records() bool { return c.Signature != "" || c.SHA256 == Recorded }

func hexDigest(s string) bool { return hexDigestRE().MatchString(s) }

var hexDigestRE = lazyRE(`^[0-9a-fA-F]{64}$`)

// oneGroup checks a regular expression that takes a value out of a line:
// it compiles and has exactly one group.
func oneGroup(what, expr string) error {
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if re.NumSubexp() != 1 {
		return fmt.Errorf("%s %q has %d groups: give one, around the value, as in 'Nodes/second\\s*:\\s*(\\d+)'", what, expr, re.NumSubexp())
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

// WorkDir is the folder a benchmark runs in: its own folder of the run's
// work folder in a suite with work = true (once Prepare made it), else
// dir, else the suite file's folder.
func (s *Suite) WorkDir(b Benchmark) string {
	if s.Settings.Work && b.Dir == "" && s.work != "" {
		return filepath.Join(s.work, b.Name)
	}
	if b.Dir == "" {
		return filepath.Dir(s.Path)
	}
	return s.Resolve(b.Dir)
}

// CommandPath is the program a benchmark runs: a bare name is looked up
// in $PATH and then in the suite's path (LookPath), anything with a slash
// is relative to the benchmark's folder.
func (s *Suite) CommandPath(b Benchmark) string {
	if filepath.Base(b.Cmd) != b.Cmd && !filepath.IsAbs(b.Cmd) {
		return filepath.Join(s.WorkDir(b), b.Cmd)
	}
	if p, err := s.LookPath(b.Cmd, s.WorkDir(b)); err == nil {
		return p
	}
	return b.Cmd
}

// LookCommands checks, before anything runs, that every command exists
// and is executable, and that every folder and expected file is there,
// so that a typo costs nothing. A benchmark that says where its programs
// come from (package or install) and lacks one is skipped instead, with
// the reason; the others' failures are errors.
func (s *Suite) LookCommands() (skipped []Skip, err error) {
	for _, b := range s.Benchmarks {
		if why := s.missing(b); why != "" && b.optional() {
			skipped = append(skipped, Skip{Name: b.Name, Why: why})
			continue
		}
		if err := s.lookCommand(b); err != nil {
			return nil, err
		}
	}
	return skipped, nil
}

// lookCommand checks one benchmark's command, folders and files.
func (s *Suite) lookCommand(b Benchmark) error {
	if _, err := exec.LookPath(s.CommandPath(b)); err != nil {
		return &Error{Path: s.Path, Msg: fmt.Sprintf("benchmark %q: command %s: %v", b.Name, b.Cmd, err)}
	}
	for _, prog := range b.Requires {
		if _, err := s.LookPath(prog, s.WorkDir(b)); err != nil {
			return &Error{Path: s.Path, Msg: fmt.Sprintf("benchmark %q: requires %s: %v", b.Name, prog, err)}
		}
	}
	if b.Stdin != "" {
		if _, err := os.Stat(s.Resolve(b.Stdin)); err != nil {
			return &Error{Path: s.Path, Msg: fmt.Sprintf("benchmark %q: stdin: %v", b.Name, err)}
		}
	}
	if st, err := os.Stat(s.WorkDir(b)); !s.madeInWork(b) && (err != nil || !st.IsDir()) {
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
	return nil
}
