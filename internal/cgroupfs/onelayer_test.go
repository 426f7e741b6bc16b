package cgroupfs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCgroupsAreMadeOnlyHere fails where a non-test Go file outside
// internal/cgroupfs both makes a directory (os.Mkdir, os.MkdirAll,
// unix.Mkdir, unix.Mkdirat, syscall.Mkdir) and speaks of cgroups (an
// identifier, an import or a string with "cgroup" in it): every cgroup
// is made by the one layer (Make), with its mark and its limits read
// back. test/machines, the guests' witness, mounts its own.
func TestCgroupsAreMadeOnlyHere(t *testing.T) {
	module := moduleRoot(t)
	filepath.WalkDir(module, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(module, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "test/machines" || rel == "internal/cgroupfs" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if mkdir, cgroup := madeCgroups(t, path); mkdir != "" && cgroup != "" {
			t.Errorf("%s: %s beside %q: cgroups are made by internal/cgroupfs alone (cgroupfs.Make)", rel, mkdir, cgroup)
		}
		return nil
	})
}

// madeCgroups says which directory-making call a file has ("" for none)
// and the first word of its code that names a cgroup ("" for none); the
// comments do not count.
func madeCgroups(t *testing.T, path string) (mkdir, cgroup string) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	mkdirs := map[string]bool{"os.Mkdir": true, "os.MkdirAll": true, "unix.Mkdir": true, "unix.Mkdirat": true, "syscall.Mkdir": true, "syscall.Mkdirat": true}
	names := func(s string) {
		if cgroup == "" && strings.Contains(strings.ToLower(s), "cgroup") {
			cgroup = s
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && mkdirs[pkg.Name+"."+sel.Sel.Name] && mkdir == "" {
					mkdir = pkg.Name + "." + sel.Sel.Name
				}
			}
		case *ast.Ident:
			names(n.Name)
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING {
				names(s)
			}
		}
		return true
	})
	return mkdir, cgroup
}

// TestMadeCgroups: the scan sees a cgroup made with os.Mkdir, and not a
// directory made where nothing speaks of cgroups, nor a comment.
func TestMadeCgroups(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(src), 0o644)
		return p
	}
	made := write("made.go", `package x

import ("os"; "path/filepath")

func shield(mount, name string) error { return os.Mkdir(filepath.Join(mount, name), 0o755) }
func procs(dir string) string { return filepath.Join(dir, "cgroup.procs") }
`)
	clean := write("clean.go", `package x

import "os"

// a cgroup named in a comment
func results(dir string) error { return os.MkdirAll(dir, 0o755) }
`)
	if mkdir, cgroup := madeCgroups(t, made); mkdir != "os.Mkdir" || cgroup != "cgroup.procs" {
		t.Errorf("made.go: %q beside %q, want os.Mkdir beside cgroup.procs", mkdir, cgroup)
	}
	if mkdir, cgroup := madeCgroups(t, clean); mkdir != "os.MkdirAll" || cgroup != "" {
		t.Errorf("clean.go: %q beside %q, want os.MkdirAll and no cgroup", mkdir, cgroup)
	}
}

// moduleRoot is the folder of the go.mod above this package.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test's folder: the sources are not here")
		}
		dir = parent
	}
}
