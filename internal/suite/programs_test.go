package suite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A program is found in $PATH and then in the suite's path, which its
// commands' $PATH gains; a benchmark whose program is missing and which
// names its package is skipped, naming it; one that does not is refused.
func TestProgramsAndSkips(t *testing.T) {
	games := t.TempDir()
	os.WriteFile(filepath.Join(games, "chess"), []byte("#!/bin/sh\necho 'Chess 1.0 by its authors'\n"), 0o755)
	s, err := Parse(filepath.Join(t.TempDir(), "s.toml"), []byte(`[settings]
path = ["`+games+`"]
[[benchmark]]
name = "chess"
cmd = "chess"
version = ["chess"]
package = "chess"
[[benchmark]]
name = "absent"
cmd = "sh"
requires = ["no-such-program-here"]
package = "no-such-package"
[[benchmark]]
name = "built"
cmd = "no-such-speedtest"
install = "build it from its source"
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.CommandPath(s.Benchmarks[0]); got != filepath.Join(games, "chess") {
		t.Errorf("chess found at %q", got)
	}
	if env := strings.Join(s.Env(s.Benchmarks[0]), "\n"); !strings.Contains(env, "PATH="+os.Getenv("PATH")+":"+games) {
		t.Errorf("the commands' $PATH lacks the suite's path")
	}
	v, err := s.VersionOf(context.Background(), s.Benchmarks[0])
	if err != nil || v != "Chess 1.0 by its authors" {
		t.Errorf("version %q, %v", v, err)
	}
	skipped, err := s.LookCommands()
	if err != nil || len(skipped) != 2 {
		t.Fatalf("skipped %v, %v", skipped, err)
	}
	if !strings.Contains(skipped[0].Why, "no-such-program-here is not installed (Debian package no-such-package: apt-get install no-such-package)") ||
		!strings.Contains(skipped[1].Why, "build it from its source") {
		t.Errorf("skips say %q", skipped)
	}
	s.Benchmarks[2].Install = ""
	if _, err := s.LookCommands(); err == nil || !strings.Contains(err.Error(), "no-such-speedtest") {
		t.Errorf("a missing program without a package: %v", err)
	}
}

// The shipped suite of real programs reads, and each of its benchmarks
// says where its programs come from, so that a machine without them
// skips rather than refuses it.
func TestShippedRealSuite(t *testing.T) {
	s, err := Load("../../suites/real.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range s.Benchmarks {
		if !b.optional() {
			t.Errorf("%s names no package and no way to install it", b.Name)
		}
		if len(b.Checks) == 0 && b.Metric == nil {
			t.Errorf("%s checks nothing", b.Name)
		}
	}
	if _, err := s.LookCommands(); err != nil {
		t.Errorf("the shipped suite is refused here: %v", err)
	}
}
