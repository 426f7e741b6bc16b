package spec

import (
	"context"
	"path/filepath"
	"strings"
)

// SPEC's run folders (benchspec/CPU/<benchmark>/run/run_*) lie in the
// tree a result lies in: the SPEC tree, or the output_root runcpu was
// given, whose result/ holds the result. Each copy 0's folder keeps the
// speccmds.out specinvoke wrote of the last iteration run there, whose
// "child started" lines hold each command as it ran, with corepin's
// submit line's --report path: the report's folder and name, the run's
// lognum in it. runcpu reuses the folders, so they say only what the last
// run to use them ran, and of each benchmark only its last iteration.

// Invocations are the commands specinvoke last ran in a result's run
// folders through corepin's submit lines: each with the report it was to
// write and specinvoke's times of it.
type Invocations struct {
	// byReport are specinvoke's times of each command, by its report's
	// folder and name ("corepin.042/505.mcf_r.base.i2.w0.c1.json").
	byReport map[string]invocation
}

// invocation is one command as speccmds.out records it: the report path
// its submit line named and specinvoke's start and end, in ns since the
// epoch.
type invocation struct {
	report   string
	from, to int64
}

// Bounds of what is read of the run folders: 43 benchmarks of two
// tunings and a few labels have a few hundred; a speccmds.out is some
// hundred bytes a copy.
const (
	maxRunFolders = 4096
	maxTimingFile = 4 << 20
)

// ReadInvocations reads the speccmds.out of the run folders of the tree
// the result file lies in (its folder's parent, where that folder is
// result/). What cannot be read is left out: the run folders are where
// runcpu works, not a record it keeps.
func ReadInvocations(ctx context.Context, result string) *Invocations {
	inv := &Invocations{byReport: map[string]invocation{}}
	dir := filepath.Dir(result)
	if filepath.Base(dir) != "result" {
		return inv
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "benchspec", "CPU", "*", "run", "*", "speccmds.out"))
	for i, path := range files {
		if i == maxRunFolders || ctx.Err() != nil {
			break
		}
		data, err := readRegular(path, maxTimingFile)
		if err != nil {
			continue
		}
		if t, err := ParseTimings(data); err == nil {
			inv.add(t)
		}
	}
	return inv
}

// add keeps the commands of one speccmds.out that name a report: each
// start with the end of the same process.
func (inv *Invocations) add(t *Timings) {
	ends := map[int]int64{}
	for _, e := range t.Finished {
		ends[e.PID] = e.UnixNS
	}
	for _, s := range t.Started {
		report := reportArgument(s.Command)
		to, ended := ends[s.PID]
		if report == "" || !ended {
			continue
		}
		inv.byReport[reportID(report)] = invocation{report: report, from: s.UnixNS, to: to}
	}
}

// reportID names a report by its folder and name, which stay the same
// whatever path reaches them.
func reportID(path string) string {
	return filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
}

// window is specinvoke's start and end of the command whose report is
// name in the folder dir, in ns since the epoch.
func (inv *Invocations) window(dir, name string) (from, to int64, ok bool) {
	if inv == nil {
		return 0, 0, false
	}
	c, ok := inv.byReport[filepath.Base(dir)+"/"+name]
	return c.from, c.to, ok
}

// ReportFolders are the folders of the reports of run lognum that the
// commands name (corepin.<lognum>, wherever spec config --reports put
// them).
func (inv *Invocations) ReportFolders(lognum string) []string {
	seen := map[string]bool{}
	var dirs []string
	for _, c := range inv.byReport {
		dir := filepath.Dir(c.report)
		l, ok := strings.CutPrefix(filepath.Base(dir), ReportDir)
		if ok && sameRun(l, lognum) && !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// reportArgument is the path a command's corepin exec --report names:
// the word after --report, or after --report=, a single-quoted part of it
// unquoted; "" when there is none.
func reportArgument(command string) string {
	words := shellWords(command)
	for i, w := range words {
		if v, ok := strings.CutPrefix(w, "--report="); ok {
			return v
		}
		if w == "--report" && i+1 < len(words) {
			return words[i+1]
		}
	}
	return ""
}

// shellWords splits a command line at spaces, tabs and ";", keeping what
// single quotes hold together and leaving them out (the quoting
// shellWord adds); it is not a shell, only the reader of what corepin's
// own submit lines write.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ { // bytes: the separators are ASCII, and a name's bytes are kept as they are
		switch c := s[i]; {
		case c == '\'':
			quoted, inWord = !quoted, true
		case !quoted && (c == ' ' || c == '\t' || c == ';'):
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}
