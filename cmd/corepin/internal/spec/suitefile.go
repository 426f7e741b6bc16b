package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// A corepin suite from SPEC's run folders, for a device where runcpu
// cannot run ("Avoiding runcpu" in SPEC CPU 2017's documentation): runcpu
// --fake or --action setup on another machine leaves in each benchmark's
// run folder (benchspec/CPU/<benchmark>/run/run_<tune>_<size>_<label>.NNNN)
// the commands specinvoke would run (speccmds.cmd) and the specdiff
// comparisons that validate them (compare.cmd), and the benchmark's data
// folder holds its reference time (reftime). The suite points at those
// files where they are; it copies none of them.

// RunDir is one set-up run folder, read.
type RunDir struct {
	// Path is the folder; Top the SPEC tree it lies in (the folder that
	// holds benchspec).
	Path, Top string
	// Benchmark, Tune, Size and Label are read from the folder's path.
	Benchmark, Tune, Size, Label string
	Commands                     *CommandFile
	Diffs                        []Diff
	// Skipped are validation commands other than specdiff, which the
	// suite does not run.
	Skipped []string
	// ReferenceS is the reference time of the size, 0 where the
	// benchmark's reftime has none.
	ReferenceS float64
}

// runDirName is run_<tune>_<size>_<label>.NNNN (the harness's reserve()).
// It is compiled on first use, as are the package's other regexps (see
// timingLines).
var runDirName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^run_([^_]+)_([^_]+)_(.+)\.(\d{4,})$`) })

// ReadRunDir reads a set-up run folder: where it lies, its commands, its
// comparisons and its benchmark's reference time.
func ReadRunDir(path string) (*RunDir, error) {
	d, err := locateRunDir(path)
	if err != nil {
		return nil, err
	}
	if err := d.readCommands(path); err != nil {
		return nil, err
	}
	if err := d.readReference(); err != nil {
		return nil, err
	}
	return d, nil
}

// locateRunDir reads what a run folder's path says: the benchmark,
// tuning, size and label, and the SPEC tree it lies in.
func locateRunDir(path string) (*RunDir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	switch st, err := os.Stat(abs); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist", path)
	case err != nil:
		return nil, err
	case !st.IsDir():
		return nil, fmt.Errorf("%s is not a folder: give SPEC's run folder of copy 0 (run_TUNE_SIZE_LABEL.0000)", path)
	}
	m := runDirName().FindStringSubmatch(filepath.Base(abs))
	if m == nil || filepath.Base(filepath.Dir(abs)) != "run" {
		return nil, fmt.Errorf("%s is not a SPEC run folder (benchspec/CPU/BENCHMARK/run/run_TUNE_SIZE_LABEL.NNNN)", path)
	}
	d := &RunDir{Path: abs, Tune: m[1], Size: m[2], Label: m[3], Benchmark: filepath.Base(benchDir(abs))}
	if err := checkName(d.Benchmark + "." + d.Tune); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for p := benchDir(abs); p != filepath.Dir(p); p = filepath.Dir(p) {
		if filepath.Base(p) == "benchspec" {
			d.Top = filepath.Dir(p)
			return d, nil
		}
	}
	return nil, fmt.Errorf("%s lies in no SPEC tree (no benchspec folder above it)", path)
}

// benchDir is the benchmark's folder of a run folder:
// benchspec/CPU/<benchmark>.
func benchDir(runDir string) string { return filepath.Dir(filepath.Dir(runDir)) }

// readCommands reads the folder's speccmds.cmd and compare.cmd, which
// SPEC writes in copy 0's folder when it sets the run up.
func (d *RunDir) readCommands(path string) error {
	read := func(name string) (*CommandFile, error) {
		data, err := readRegular(filepath.Join(d.Path, name), maxCmdFileSize)
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("no %s in %s: SPEC writes it in the folder of copy 0 (.0000) when it sets the run up", name, path)
		}
		if err != nil {
			return nil, err
		}
		f, err := ParseCommandFile(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(path, name), err)
		}
		return f, nil
	}
	var err error
	if d.Commands, err = read("speccmds.cmd"); err != nil {
		return err
	}
	cf, err := read("compare.cmd")
	if err != nil {
		return err
	}
	if d.Diffs, d.Skipped, err = Diffs(cf); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(path, "compare.cmd"), err)
	}
	return nil
}

// readReference reads the size's reference time from the benchmark's
// reftime, where it has one.
func (d *RunDir) readReference() error {
	path := filepath.Join(benchDir(d.Path), "data", d.Size, "reftime")
	data, err := readRegular(path, 1<<20)
	if err != nil {
		return nil // no reference: the suite's ratio is left out
	}
	refs, err := ParseReftime(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	d.ReferenceS, _ = ReferenceFor(refs, d.Size)
	return nil
}

// Shell is the benchmark's work as one shell command, run in its folder:
// each workload's command with its redirections, the next only when the
// one before succeeded (specinvoke stops a copy at its first failure).
// A command corepin's submit lines wrapped is unwrapped; any other
// wrapper ($BIND, $SPECCOPYNUM) is refused: its folder must be set up
// without it.
func (d *RunDir) Shell() (string, error) {
	var parts []string
	for _, c := range d.Commands.Commands {
		text := unwrapSubmit(c.Text)
		if strings.Contains(text, "$BIND") || strings.Contains(text, "$SPECCOPYNUM") {
			return "", fmt.Errorf("%s: the command of speccmds.cmd line %d went through a submit line (%q): set the folder up with a config without it, or with corepin spec config's", d.Path, c.Line, clipText(text))
		}
		if !d.Commands.Redirect {
			if c.Input != "" {
				text += " < " + c.Input
			}
			if c.Output != "" {
				text += " > " + c.Output
			}
			if c.Error != "" {
				text += " 2>> " + c.Error
			}
		}
		if c.Dir != "" {
			text = "(cd " + c.Dir + " && " + text + ")"
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, " && "), nil
}

// unwrapSubmit returns the command corepin spec config's submit lines
// wrapped (echo "${command}" > corepin.sh; …), else the text as it is.
func unwrapSubmit(text string) string {
	const open, end = `echo "`, `" > ` + Script
	i := strings.Index(text, open)
	if i < 0 {
		return text
	}
	j := strings.Index(text[i+len(open):], end)
	if j < 0 {
		return text
	}
	return text[i+len(open) : i+len(open)+j]
}

// SuiteFile writes a corepin suite of the run folders, in order, with
// every path relative to base (the suite file's folder), so that the
// suite and the SPEC tree it lies in go to a device together.
func SuiteFile(dirs []*RunDir, base string, runs int) ([]byte, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no run folder")
	}
	var b strings.Builder
	b.WriteString("# A corepin suite of SPEC CPU benchmarks, from the run folders SPEC set up\n")
	b.WriteString("# (corepin spec suite). It points at SPEC's binaries, inputs and reference\n")
	b.WriteString("# outputs where they are, and holds none of them: keep it in the SPEC tree.\n")
	b.WriteString("# Each check is specdiff's comparison of compare.cmd, with its tolerances.\n\n")
	fmt.Fprintf(&b, "[settings]\nruns = %d\nwarmup = 0\n", runs)
	seen := map[string]bool{}
	for _, d := range dirs {
		name := d.Benchmark + "." + d.Tune
		if seen[name] {
			return nil, fmt.Errorf("%s: a second run folder of %s", d.Path, name)
		}
		seen[name] = true
		if err := d.writeBenchmark(&b, name, base); err != nil {
			return nil, err
		}
	}
	return []byte(b.String()), nil
}

// relativeTo is p relative to base, the suite file's folder.
func relativeTo(base, p string) (string, error) {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return "", fmt.Errorf("%s from %s: %w", p, base, err)
	}
	return r, nil
}

// writeBenchmark writes the folder's benchmark: its command, folder,
// OpenMP settings and reference, then a check per specdiff comparison.
func (d *RunDir) writeBenchmark(b *strings.Builder, name, base string) error {
	shell, err := d.Shell()
	if err != nil {
		return err
	}
	dir, err := relativeTo(base, d.Path)
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "\n# %s, %s tuning, %s, label %s\n[[benchmark]]\nname = %s\ncmd = \"sh\"\nargs = [\"-c\", %s]\ndir = %s\n",
		d.Benchmark, d.Tune, d.Size, d.Label, tomlString(name), tomlString(shell), tomlString(dir))
	if env := ompEnv(d.Commands.Env); env != "" {
		fmt.Fprintf(b, "env = { %s }\n", env)
	}
	if d.ReferenceS > 0 {
		fmt.Fprintf(b, "reference_seconds = %g\n", d.ReferenceS)
	}
	for _, skipped := range d.Skipped {
		fmt.Fprintf(b, "# not run: the benchmark's own validation command %s\n", strings.ReplaceAll(skipped, "\n", " "))
	}
	for _, diff := range d.Diffs {
		expected, err := relativeTo(base, d.rebase(diff.Expected))
		if err != nil {
			return err
		}
		writeCheck(b, diff, expected)
	}
	return nil
}

// writeCheck writes one specdiff comparison as a check, with its
// tolerances.
func writeCheck(b *strings.Builder, diff Diff, expected string) {
	fmt.Fprintf(b, "\n  [[benchmark.check]]\n  file = %s\n  expected = %s\n", tomlString(diff.Output), tomlString(expected))
	if diff.RelTol != nil {
		fmt.Fprintf(b, "  reltol = %g\n", *diff.RelTol)
	}
	if diff.AbsTol != nil {
		fmt.Fprintf(b, "  abstol = %g\n", *diff.AbsTol)
	}
	if diff.SkipTol > 0 {
		fmt.Fprintf(b, "  skiptol = %d\n", diff.SkipTol)
	}
	if diff.Obiwan {
		b.WriteString("  obiwan = true\n")
	}
	if diff.CW {
		b.WriteString("  skip_lines = ['^\\s*$']  # specdiff --cw skips blank lines\n")
	}
	if !diff.Numeric {
		b.WriteString("  collapse_whitespace = false  # no tolerance: specdiff compares whole lines\n")
	}
	if diff.IgnoreCase {
		b.WriteString("  ignore_case = true\n")
	}
}

// rebase finds a file of the SPEC tree the folder was set up in (its path
// as compare.cmd names it) in the tree the folder lies in now.
func (d *RunDir) rebase(p string) string {
	const mark = "/benchspec/"
	if i := strings.LastIndex(filepath.ToSlash(p), mark); i >= 0 {
		return filepath.Join(d.Top, filepath.FromSlash(filepath.ToSlash(p)[i+1:]))
	}
	return p
}

// ompEnv is the OpenMP settings of the run's environment as a TOML inline
// table: the rest of runcpu's environment (its PATH, $SPEC) is the
// machine's that set the run up, not the device's.
func ompEnv(env []EnvVar) string {
	var kv []string
	for _, e := range env {
		if strings.HasPrefix(e.Name, "OMP_") && !strings.ContainsAny(e.Name, " =\x00") {
			kv = append(kv, tomlString(e.Name)+" = "+tomlString(e.Value))
		}
	}
	return strings.Join(kv, ", ")
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, string(utf8.RuneError)) {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
