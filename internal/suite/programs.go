package suite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Bounds of what a benchmark says about its programs.
const (
	MaxVersionLen = 200 // a version line, as recorded and as a known signature's key
	maxNoteLen    = 300 // package and install
	versionWait   = 10 * time.Second
)

// validateWork checks what a benchmark says of the programs it needs, its
// inputs, its metric and its CPUs.
func (b Benchmark) validateWork() error {
	for _, r := range b.Requires {
		if r == "" || strings.ContainsRune(r, 0) {
			return fmt.Errorf("requires %q: give program names", r)
		}
	}
	switch {
	case len(b.Package) > maxNoteLen || len(b.Install) > maxNoteLen:
		return fmt.Errorf("package and install hold at most %d bytes", maxNoteLen)
	case strings.ContainsAny(b.Package, " \t\n"):
		return fmt.Errorf("package %q: give the Debian package's name (the way to get anything else goes in install)", b.Package)
	case len(b.Version) > 0 && (b.Version[0] == "" || slices.ContainsFunc(b.Version, func(a string) bool { return strings.ContainsRune(a, 0) })):
		return errors.New("version: give a command line, such as [\"gcc\", \"--version\"]")
	case b.CPUs != "" && b.CPUs != "group":
		return fmt.Errorf("cpus %q: leave it out (the target CPU) or give \"group\" (the target's performance group, for work of several threads)", b.CPUs)
	case len(b.Inputs) > 0 && b.Dir != "":
		return errors.New("a benchmark with inputs runs in its own work folder, where they are made: leave dir out")
	case b.Metric != nil && b.ReferenceSeconds != 0:
		return errors.New("reference_seconds is a time: a benchmark judged by its metric gives the metric's reference")
	}
	if err := validateInputs(b.Inputs); err != nil {
		return err
	}
	if b.Metric != nil {
		if err := b.Metric.validate(); err != nil {
			return fmt.Errorf("metric: %w", err)
		}
	}
	return nil
}

// Skip is a benchmark that cannot run here, and why.
type Skip struct{ Name, Why string }

// LookPath finds a program as the suite's commands find it: a name with a
// slash as it is (relative to dir), a bare name in $PATH and then in the
// suite's path.
func (s *Suite) LookPath(name, dir string) (string, error) {
	if filepath.Base(name) != name {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return exec.LookPath(name)
	}
	for _, d := range s.searchPath() {
		if p := filepath.Join(d, name); executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not in $PATH%s", name, s.pathNote())
}

func (s *Suite) searchPath() []string {
	return append(filepath.SplitList(os.Getenv("PATH")), s.Settings.Path...)
}

func (s *Suite) pathNote() string {
	if len(s.Settings.Path) == 0 {
		return ""
	}
	return " nor in " + strings.Join(s.Settings.Path, ", ")
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// Env is the environment a benchmark's commands run in: corepin's, with
// the suite's path added to $PATH, and the benchmark's own variables.
func (s *Suite) Env(b Benchmark) []string {
	env := os.Environ()
	if len(s.Settings.Path) > 0 {
		env = append(env, "PATH="+strings.Join(s.searchPath(), string(filepath.ListSeparator)))
	}
	for k, v := range b.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// missing says which program of the benchmark is not installed, and how
// to get it, or "" when all are there.
func (s *Suite) missing(b Benchmark) string {
	for _, prog := range append([]string{b.Cmd}, b.Requires...) {
		if _, err := s.LookPath(prog, s.WorkDir(b)); err == nil {
			continue
		}
		why := fmt.Sprintf("%s is not installed", prog)
		if b.Package != "" {
			why += fmt.Sprintf(" (Debian package %s: apt-get install %s)", b.Package, b.Package)
		}
		if b.Install != "" {
			why += " (" + b.Install + ")"
		}
		return why
	}
	return ""
}

// optional reports whether a benchmark whose programs are missing is
// skipped rather than refused: it says where they come from.
func (b Benchmark) optional() bool { return b.Package != "" || b.Install != "" }

// VersionOf runs the benchmark's version command once, off the target and
// untimed, and returns the first line of its output (its standard output,
// else its standard error), at most MaxVersionLen bytes: the version its
// signatures are recorded under.
func (s *Suite) VersionOf(ctx context.Context, b Benchmark) (string, error) {
	if len(b.Version) == 0 {
		return "", nil
	}
	prog, err := s.LookPath(b.Version[0], s.WorkDir(b))
	if err != nil {
		return "", fmt.Errorf("version command: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, versionWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, b.Version[1:]...)
	cmd.Env, cmd.Dir = s.Env(b), s.WorkDir(b)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{w: &stdout, n: 64 << 10}, &limited{w: &stderr, n: 64 << 10}
	if err := cmd.Run(); err != nil && ctx.Err() != nil {
		return "", fmt.Errorf("version command %q: no answer in %v", b.Version, versionWait)
	}
	// A program that prints its version and then complains that it was
	// given nothing to do still named its version.
	for _, out := range []*bytes.Buffer{&stdout, &stderr} {
		for _, line := range strings.Split(out.String(), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				if len(line) > MaxVersionLen {
					line = line[:MaxVersionLen]
				}
				return line, nil
			}
		}
	}
	return "", fmt.Errorf("version command %q printed nothing", b.Version)
}

// limited writes at most n bytes to w and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
