package suite

import (
	"os"
	"path/filepath"
	"testing"
)

// A suite loaded by a relative path runs its "./prog" from its own
// folder, never a prog of the same name from $PATH.
func TestRelativeSuitePathAnchorsDotSlash(t *testing.T) {
	dir := t.TempDir()
	onPath := filepath.Join(dir, "bin")
	os.Mkdir(onPath, 0o755)
	for _, p := range []string{filepath.Join(dir, "prog"), filepath.Join(onPath, "prog")} {
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "suite.toml"), []byte("[[benchmark]]\nname = \"p\"\ncmd = \"./prog\"\n"), 0o644)
	t.Chdir(dir)
	t.Setenv("PATH", onPath)
	s, err := Load("suite.toml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Path != filepath.Join(dir, "suite.toml") {
		t.Errorf("suite path %q, want it absolute", s.Path)
	}
	if got := s.CommandPath(s.Benchmarks[0]); got != filepath.Join(dir, "prog") {
		t.Errorf("./prog resolves to %q, want %q", got, filepath.Join(dir, "prog"))
	}
	if _, err := s.LookCommands(); err != nil {
		t.Error(err)
	}
}
