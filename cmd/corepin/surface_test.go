package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxExported bounds the library's face: the exported identifiers of the
// module's packages that are neither internal nor main.
const maxExported = 600

var showSurface = flag.Bool("surface", false, "print the exported identifiers of each public package")

// surface is the library's face as go/ast sees it, package by package:
// its exported top-level funcs, types (an alias too), vars and consts,
// and the exported methods of its exported types, each counted once
// however many platform files declare it; and its type aliases.
type surface struct {
	names   map[string][]string // package folder → "func Run", "method Report.Text", …
	aliases map[string][]string // package folder → "ChildReport = evidence.ChildReport", …
}

func readSurface(t *testing.T) surface {
	t.Helper()
	s := surface{names: map[string][]string{}, aliases: map[string][]string{}}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (d.Name() == "internal" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		add := func(name string) {
			if !slices.Contains(s.names[pkg], name) {
				s.names[pkg] = append(s.names[pkg], name)
			}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					add("func " + d.Name.Name)
				} else if recv := receiverType(d.Recv.List[0].Type); ast.IsExported(recv) {
					add("method " + recv + "." + d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if !spec.Name.IsExported() {
							continue
						}
						add("type " + spec.Name.Name)
						if spec.Assign.IsValid() {
							a := spec.Name.Name + " = " + types(spec.Type)
							if !slices.Contains(s.aliases[pkg], a) {
								s.aliases[pkg] = append(s.aliases[pkg], a)
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							if n.IsExported() {
								add(d.Tok.String() + " " + n.Name)
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// receiverType is the name of a method's receiver type: T of T, *T, T[P].
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// types writes a type expression as its source says it, for the
// aliases' messages.
func types(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return types(x.X) + "." + x.Sel.Name
	case *ast.StarExpr:
		return "*" + types(x.X)
	}
	return fmt.Sprintf("%T", e)
}

// TestPublicSurface: the library is small enough to read, at most
// maxExported exported identifiers in all (bench/exported.sh prints them,
// package by package).
func TestPublicSurface(t *testing.T) {
	s := readSurface(t)
	var pkgs []string
	for p := range s.names {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	total, aliases := 0, 0
	for _, p := range pkgs {
		t.Logf("%5d %s (%d aliases)", len(s.names[p]), p, len(s.aliases[p]))
		if *showSurface {
			slices.Sort(s.names[p])
			for _, n := range s.names[p] {
				t.Logf("        %s", n)
			}
		}
		total += len(s.names[p])
		aliases += len(s.aliases[p])
	}
	t.Logf("%5d exported identifiers in %d packages, %d type aliases", total, len(pkgs), aliases)
	if total > maxExported {
		t.Errorf("the public packages export %d identifiers, more than %d", total, maxExported)
	}
}

// TestEvidenceHasOneName: an evidence type is called by its name in
// results/evidence everywhere. A package that fills one in returns it as
// it is (session.Run's *evidence.Session); no alias gives it a second name
// that a reader of the package would have to look up.
func TestEvidenceHasOneName(t *testing.T) {
	const evidencePkg = "corepin.dev/corepin/results/evidence"
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "results/evidence" || d.Name() == "testdata" || rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		names := map[string]bool{} // what this file calls package evidence
		for _, imp := range f.Imports {
			if imp.Path.Value == `"`+evidencePkg+`"` {
				if imp.Name != nil {
					names[imp.Name.Name] = true
				} else {
					names["evidence"] = true
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok || !spec.Assign.IsValid() {
				return true
			}
			ty := spec.Type
			if star, ok := ty.(*ast.StarExpr); ok {
				ty = star.X
			}
			if sel, ok := ty.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && names[x.Name] {
					t.Errorf("%s: type %s = %s.%s: call it %s.%s", rel, spec.Name.Name, x.Name, sel.Sel.Name, x.Name, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
