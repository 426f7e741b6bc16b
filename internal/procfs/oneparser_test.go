package procfs_test

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

// The packages that may parse the kernel's per-process files and the
// mount table. test/machines is the guests' witness: it reads the kernel
// on its own, without corepin's packages, so that a bug in them cannot
// hide itself.
var parsers = map[string]string{
	"internal/procfs":   "/proc/PID/stat",
	"internal/cgroupfs": "mountinfo",
}

const witness = "test/machines"

// TestOneParser fails where a package other than internal/procfs parses
// a /proc/PID/stat line (the fields after the command name's last ')')
// or other than internal/cgroupfs reads the mount table (a string that
// names mountinfo), in the module's non-test Go files.
func TestOneParser(t *testing.T) {
	module := moduleRoot(t)
	var found []string
	filepath.WalkDir(module, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(module, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == witness || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, what := range offences(t, path) {
			if parsers[pkg] == what {
				continue
			}
			found = append(found, rel+": "+what)
		}
		return nil
	})
	for _, f := range found {
		t.Errorf("%s is parsed outside internal/procfs and internal/cgroupfs", f)
	}
}

// offences lists what a file parses of the two: "/proc/PID/stat" for a
// LastIndexByte(…, ')') or LastIndex(…, ")"), "mountinfo" for a string
// literal that names it.
func offences(t *testing.T, path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || len(n.Args) != 2 || (sel.Sel.Name != "LastIndexByte" && sel.Sel.Name != "LastIndex") {
				return true
			}
			if lit, ok := n.Args[1].(*ast.BasicLit); ok && (lit.Value == `')'` || lit.Value == `")"`) {
				out = append(out, "/proc/PID/stat")
			}
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && strings.Contains(s, "mountinfo") {
				out = append(out, "mountinfo")
			}
		}
		return true
	})
	return out
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
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// TestOffences: the heuristic sees both ways of parsing, and not a
// comment that names mountinfo.
func TestOffences(t *testing.T) {
	src := filepath.Join(t.TempDir(), "x.go")
	os.WriteFile(src, []byte(`package x

import ("os"; "strings")

// mountinfo in a comment is no read.
func start(s string) string { return s[strings.LastIndexByte(s, ')')+1:] }
func mounts() ([]byte, error) { return os.ReadFile("/proc/self/mountinfo") }
`), 0o644)
	got := offences(t, src)
	if len(got) != 2 || got[0] != "/proc/PID/stat" || got[1] != "mountinfo" {
		t.Errorf("offences = %v, want the stat parse and the mountinfo read", got)
	}
}
