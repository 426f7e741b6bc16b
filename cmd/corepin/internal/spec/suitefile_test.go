package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/internal/suite"
)

// specTree lays out a set-up run folder of 505.mcf_r under a new SPEC
// tree, with testdata's command files, and returns the tree and folder.
func specTree(t *testing.T, cmds string) (top, dir string) {
	t.Helper()
	top = t.TempDir()
	bench := filepath.Join(top, "benchspec", "CPU", "505.mcf_r")
	dir = filepath.Join(bench, "run", "run_base_refrate_none.0000")
	for _, d := range []string{dir, filepath.Join(bench, "data", "refrate")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "speccmds.cmd"), []byte(cmds), 0o644)
	os.WriteFile(filepath.Join(dir, "compare.cmd"), read(t, "compare.cmd"), 0o644)
	os.WriteFile(filepath.Join(bench, "data", "refrate", "reftime"), read(t, "reftime"), 0o644)
	return top, dir
}

// A suite of a run folder: the workloads in order with their
// redirections (corepin's own submit unwrapped), specdiff's tolerances,
// the size's reference, paths relative to the suite file, and a file
// the suite package reads.
func TestSuiteFile(t *testing.T) {
	top, dir := specTree(t, string(read(t, "speccmds.cmd")))
	d, err := ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Top != top || d.Benchmark != "505.mcf_r" || d.Tune != "base" || d.Size != "refrate" || d.ReferenceS != 1616 {
		t.Fatalf("read %+v", d)
	}
	data, err := SuiteFile([]*RunDir{d}, top, 3)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "suite.toml", string(data))
	path := filepath.Join(top, "suite.toml")
	s, err := suite.Parse(path, data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	b := s.Benchmarks[0]
	want := `../run_base_refrate_none.0000/mcf_r_base.none inp.in > inp.out 2>> inp.err && ../run_base_refrate_none.0000/mcf_r_base.none second`
	if b.Name != "505.mcf_r.base" || b.Args[1] != want || s.WorkDir(b) != dir || b.Env["OMP_THREAD_LIMIT"] != "1" || len(b.Env) != 1 {
		t.Errorf("benchmark %+v", b)
	}
	c := b.Checks[0]
	if c.File != "inp.out" || s.Resolve(c.Expected) != filepath.Join(top, "benchspec/CPU/505.mcf_r/data/refrate/output/inp.out") || c.RelTol != 1e-4 || !c.Obiwan {
		t.Errorf("check %+v", c)
	}
	if c := b.Checks[1]; c.CollapseWhitespace == nil || *c.CollapseWhitespace || c.Obiwan {
		t.Errorf("the --cw check %+v", c)
	}
}

// Without command_add_redirect specinvoke redirects: the suite's shell
// does it instead. A command another submit line wrapped is refused.
func TestSuiteFileRedirects(t *testing.T) {
	_, dir := specTree(t, "-C /spec/x\n-i in.txt -o out.txt -e err.txt ./bench 3\n")
	d, err := ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sh, err := d.Shell(); err != nil || sh != "./bench 3 < in.txt > out.txt 2>> err.txt" {
		t.Errorf("shell %q, %v", sh, err)
	}
	_, dir = specTree(t, "-b 3\n-C /spec/x\n-o out.txt taskset -c $BIND ./bench 3\n")
	d, err = ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Shell(); err == nil || !strings.Contains(err.Error(), "went through a submit line") {
		t.Errorf("a taskset submit: %v", err)
	}
	for _, bad := range []string{t.TempDir(), filepath.Join(t.TempDir(), "run", "run_base_refrate_none.0000")} {
		os.MkdirAll(bad, 0o755)
		if _, err := ReadRunDir(bad); err == nil {
			t.Errorf("%s read as a run folder", bad)
		}
	}
	// What is not there is said so, not taken for another folder.
	missing := filepath.Join(t.TempDir(), "nonexist")
	if _, err := ReadRunDir(missing); err == nil || err.Error() != missing+" does not exist" {
		t.Errorf("a folder that does not exist: %v", err)
	}
}
