package main

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"corepin.dev/corepin/internal/cli"
)

// flagName is a flag as a text names it: "--max-others".
var flagName = regexp.MustCompile(`(?:^|[^A-Za-z0-9-])--([a-z][a-z0-9-]*)`)

// TestNoFlagNamesOutsideCmd: no package outside cmd/ names one of
// corepin's flags in a string. A library cannot know which flags the
// command that uses it has, and a text that names one it has not advises
// what cannot be done: the command hands the names (judgeFlags). Tests
// and the test programs under test/ speak to no user.
func TestNoFlagNamesOutsideCmd(t *testing.T) {
	ours := map[string]bool{}
	newRootCmd(nil).Walk(func(c *cli.Command) {
		for _, fs := range []*flag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *flag.Flag) { ours[f.Name] = true })
		}
	})
	found := map[string][]string{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "cmd" || rel == "test" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			found[filepath.ToSlash(rel)] = flagsNamedIn(t, path, ours)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for file, names := range found {
		if len(names) > 0 {
			t.Errorf("%s names corepin's flags %s: a library must take their names from the command", file, strings.Join(names, ", "))
		}
	}
}

// flagsNamedIn lists the flags of ours that the strings of the Go file
// path name, a line each.
func flagsNamedIn(t *testing.T, path string, ours map[string]bool) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, m := range flagName.FindAllStringSubmatch(s, -1) {
			if ours[m[1]] && !slices.Contains(names, "--"+m[1]) {
				names = append(names, "--"+m[1])
			}
		}
		return true
	})
	return names
}
