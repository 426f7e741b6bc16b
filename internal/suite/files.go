package suite

import (
	"os"
	"path/filepath"
	"sort"
)

// Inputs are the local files and folders a suite names and needs before it
// runs: the suite file itself, commands given by a path, stdin files,
// arguments that name existing files, the expected outputs of checks,
// and the benchmarks' working folders. Running a suite elsewhere (on a
// device) means bringing these along; outputs a check reads are made by
// the run and are not inputs. Paths are as the suite resolves them here.
func (s *Suite) Inputs() (files, dirs []string) {
	seen := map[string]bool{}
	add := func(list *[]string, p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			*list = append(*list, p)
		}
	}
	isFile := func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && st.Mode().IsRegular()
	}
	add(&files, s.Path)
	for _, b := range s.Benchmarks {
		wd := s.WorkDir(b)
		if b.Dir != "" && !filepath.IsAbs(b.Dir) {
			add(&dirs, wd)
		}
		if filepath.Base(b.Cmd) != b.Cmd && !filepath.IsAbs(b.Cmd) {
			add(&files, filepath.Join(wd, b.Cmd))
		}
		if b.Stdin != "" && !filepath.IsAbs(b.Stdin) {
			add(&files, s.Resolve(b.Stdin))
		}
		for _, a := range b.Args {
			if p := filepath.Join(wd, a); !filepath.IsAbs(a) && isFile(p) {
				add(&files, p)
			}
		}
		for _, c := range b.Checks {
			if c.Expected != "" && !filepath.IsAbs(c.Expected) {
				add(&files, s.Resolve(c.Expected))
			}
		}
	}
	sort.Strings(files[1:])
	sort.Strings(dirs)
	return files, dirs
}
