package procfs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The packages that may parse the kernel's per-process files, the CPUs'
// descriptions, the mount table and the cgroup hierarchies:
// internal/procfs /proc/PID/stat and /proc/cpuinfo,
// internal/cgroupfs mountinfo, /proc/PID/cgroup and the paths where the
// cgroup file systems are mounted. test/machines is the guests' witness:
// it reads the kernel on its own, without corepin's packages, so that a
// bug in them cannot hide itself.
var parsers = map[string][]string{
	"internal/procfs":   {"/proc/PID/stat", "/proc/cpuinfo"},
	"internal/cgroupfs": {"mountinfo", "/proc/PID/cgroup", "a cgroup mount path"},
}

const witness = "test/machines"

// TestOneParser fails where a package other than internal/procfs parses
// a /proc/PID/stat line (the fields after the command name's last ')')
// or reads /proc/cpuinfo (a path that ends in it),
// or other than internal/cgroupfs reads the mount table (a string that
// names mountinfo), a process's cgroups (a path that ends in a /proc
// entry's cgroup) or a cgroup hierarchy at a path of its own choosing
// (a string with sys/fs/cgroup in it, where the mount table says where
// they are), in the module's non-test Go files.
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
			if slices.Contains(parsers[pkg], what) {
				continue
			}
			found = append(found, rel+": "+what)
		}
		return nil
	})
	for _, f := range found {
		t.Errorf("%s is read outside internal/procfs and internal/cgroupfs", f)
	}
}

// offences lists what a file reads of these: "/proc/PID/stat" for a
// LastIndexByte(…, ')') or LastIndex(…, ")"), "mountinfo" for a string
// literal that names it, "/proc/cpuinfo" for a path that ends in
// cpuinfo ("/proc/cpuinfo", or "cpuinfo" joined to "proc"),
// "/proc/PID/cgroup" for a string that ends in a
// proc path's cgroup ("/proc/self/cgroup", "/cgroup") or a Join of "proc"
// and "cgroup", and "a cgroup mount path" for a string with
// sys/fs/cgroup in it.
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
			if !ok {
				return true
			}
			if sel.Sel.Name == "Join" && joinsProcCgroup(n.Args) {
				out = append(out, "/proc/PID/cgroup")
			}
			if len(n.Args) != 2 || (sel.Sel.Name != "LastIndexByte" && sel.Sel.Name != "LastIndex") {
				return true
			}
			if lit, ok := n.Args[1].(*ast.BasicLit); ok && (lit.Value == `')'` || lit.Value == `")"`) {
				out = append(out, "/proc/PID/stat")
			}
		case *ast.BasicLit:
			s, err := strconv.Unquote(n.Value)
			if err != nil || n.Kind != token.STRING {
				return true
			}
			if strings.Contains(s, "mountinfo") {
				out = append(out, "mountinfo")
			}
			if s == "/cgroup" || strings.HasSuffix(s, "/cgroup") && strings.Contains(s, "proc/") {
				out = append(out, "/proc/PID/cgroup")
			}
			if s == "cpuinfo" || strings.HasSuffix(s, "/cpuinfo") {
				out = append(out, "/proc/cpuinfo")
			}
			if strings.Contains(s, "sys/fs/cgroup") {
				out = append(out, "a cgroup mount path")
			}
		}
		return true
	})
	return out
}

// joinsProcCgroup says whether a Join's arguments are a /proc path and
// "cgroup": filepath.Join("/proc", pid, "cgroup").
func joinsProcCgroup(args []ast.Expr) bool {
	var proc, cgroup bool
	for _, a := range args {
		lit, ok := a.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			continue
		}
		s, _ := strconv.Unquote(lit.Value)
		proc = proc || s == "/proc" || s == "proc"
		cgroup = cgroup || s == "cgroup"
	}
	return proc && cgroup
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

// TestOffences: the heuristic sees every way of reading, and not a
// comment that names mountinfo or /sys/fs/cgroup.
func TestOffences(t *testing.T) {
	src := filepath.Join(t.TempDir(), "x.go")
	os.WriteFile(src, []byte(`package x

import ("os"; "path/filepath"; "strings")

// mountinfo and /sys/fs/cgroup in a comment are no read.
func start(s string) string { return s[strings.LastIndexByte(s, ')')+1:] }
func mounts() ([]byte, error) { return os.ReadFile("/proc/self/mountinfo") }
func own() ([]byte, error) { return os.ReadFile("/proc/self/cgroup") }
func of(pid string) ([]byte, error) { return os.ReadFile(filepath.Join("/proc", pid, "cgroup")) }
func cpu() ([]byte, error) { return os.ReadFile("/sys/fs/cgroup/cpu/cpu.shares") }
func fine() string { return "cgroup.procs" }
`), 0o644)
	got := offences(t, src)
	want := []string{"/proc/PID/stat", "mountinfo", "/proc/PID/cgroup", "/proc/PID/cgroup", "a cgroup mount path"}
	if !slices.Equal(got, want) {
		t.Errorf("offences = %v, want %v", got, want)
	}
}
