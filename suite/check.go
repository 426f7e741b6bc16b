package suite

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"corepin.dev/corepin/internal/inputfile"
	"corepin.dev/corepin/results/evidence"
)

// Outcome is the result of one check, as the run's evidence keeps it.
type Outcome = evidence.Outcome

// MaxCompared bounds the outputs a number-by-number comparison reads into
// memory; hashes and regular expressions read any size as a stream.
const MaxCompared = 64 << 20

// maxLine bounds a line that a regular expression is matched against.
const maxLine = 16 << 20

// MaxOutcomeText bounds an outcome's What and Detail: an outcome is kept
// with every run, so the suite's text in it (a regular expression, a
// path) and the output's (a differing word) are clipped, never copied
// whole into each run's record.
const MaxOutcomeText = 160

// bounded clips the outcome's texts to MaxOutcomeText.
func bounded(o Outcome) Outcome {
	o.What, o.Detail = evidence.Clip(o.What, MaxOutcomeText), evidence.Clip(o.Detail, MaxOutcomeText)
	return o
}

// RunFile applies the check to a run's output, its standard output being
// in the file stdoutPath, reading as a stream where the check allows, so
// that the memory it takes does not grow with the output.
func (c Check) RunFile(s *Suite, stdoutPath, dir string) Outcome {
	return bounded(c.runFile(s, stdoutPath, dir))
}

func (c Check) runFile(s *Suite, stdoutPath, dir string) Outcome {
	subject, p := "stdout", stdoutPath
	if c.File != "" {
		subject, p = c.File, c.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
	}
	f, err := inputfile.Open(p)
	if err != nil {
		return Outcome{What: subject, Detail: err.Error()}
	}
	defer f.Close()
	switch {
	case c.SHA256 != "":
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return Outcome{What: subject, Detail: err.Error()}
		}
		return c.sha(subject, h.Sum(nil))
	case c.Regex != "":
		re := regexp.MustCompile(c.Regex)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), maxLine)
		o := Outcome{What: fmt.Sprintf("%s matches /%s/", clip(subject), clip(c.Regex))}
		for sc.Scan() {
			if re.Match(sc.Bytes()) {
				o.Passed = true
				return o
			}
		}
		o.Detail = "no match"
		if err := sc.Err(); err != nil {
			o.Detail = fmt.Sprintf("no match before a line that could not be read (%v; lines are matched up to %d MiB)", err, maxLine>>20)
		}
		return o
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxCompared+1))
	if err != nil {
		return Outcome{What: subject, Detail: err.Error()}
	}
	if len(data) > MaxCompared {
		return Outcome{What: subject, Detail: fmt.Sprintf("larger than %d MiB, too large to compare number by number; use sha256 or regex", MaxCompared>>20)}
	}
	return c.expected(s, subject, data)
}

func (c Check) sha(subject string, sum []byte) Outcome {
	got := hex.EncodeToString(sum)
	o := Outcome{What: subject + " has SHA-256 " + c.SHA256[:12] + "…", Passed: strings.EqualFold(got, c.SHA256)}
	if !o.Passed {
		o.Detail = "SHA-256 is " + got
	}
	return o
}

// Run applies the check to a run's output: stdout, and files under dir.
func (c Check) Run(s *Suite, stdout []byte, dir string) Outcome {
	return bounded(c.run(s, stdout, dir))
}

func (c Check) run(s *Suite, stdout []byte, dir string) Outcome {
	subject := "stdout"
	data := stdout
	if c.File != "" {
		subject = c.File
		p := c.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		var err error
		if data, err = readFile(p); err != nil {
			return Outcome{What: subject, Detail: err.Error()}
		}
	}
	switch {
	case c.SHA256 != "":
		sum := sha256.Sum256(data)
		return c.sha(subject, sum[:])
	case c.Regex != "":
		o := Outcome{What: fmt.Sprintf("%s matches /%s/", clip(subject), clip(c.Regex)), Passed: regexp.MustCompile(lineMode + c.Regex).Match(data)}
		if !o.Passed {
			o.Detail = "no match"
		}
		return o
	}
	return c.expected(s, subject, data)
}

func (c Check) expected(s *Suite, subject string, data []byte) Outcome {
	want, err := readAtMost(s.Resolve(c.Expected), MaxCompared)
	if err != nil {
		return Outcome{What: subject, Detail: "reading the expected output: " + err.Error()}
	}
	o := Outcome{What: fmt.Sprintf("%s matches %s (abstol %g, reltol %g)", clip(subject), clip(c.Expected), c.AbsTol, c.RelTol)}
	o.Detail = c.Compare(string(want), string(data))
	o.Passed = o.Detail == ""
	return o
}

// lineMode makes ^ and $ match at the start and end of every line: output
// ends with a newline, before which Go's plain $ would not match.
const lineMode = "(?m)"

// Compare compares output with a reference the way SPEC's specdiff does
// and returns "" when they agree, else the first difference with its line.
// Lines matching SkipLines are dropped from both; white space runs are one
// space unless CollapseWhitespace is false; numbers agree when |a-b| <=
// AbsTol or |a-b| <= |ref|*RelTol, up to SkipTol numbers may disagree.
func (c Check) Compare(want, got string) string {
	wl, gl := c.lines(want), c.lines(got)
	skipped := 0
	for i := 0; i < max(len(wl), len(gl)); i++ {
		if i >= len(wl) || i >= len(gl) {
			return fmt.Sprintf("line %d: the output has %d lines, the reference %d", i+1, len(gl), len(wl))
		}
		wf, gf := strings.Fields(wl[i].text), strings.Fields(gl[i].text)
		if c.CollapseWhitespace != nil && !*c.CollapseWhitespace {
			wf, gf = []string{wl[i].text}, []string{gl[i].text}
		}
		if len(wf) != len(gf) {
			return fmt.Sprintf("line %d: %q, reference %q", gl[i].n, clip(gl[i].text), clip(wl[i].text))
		}
		for j := range wf {
			ok, numeric := c.tokenAgrees(wf[j], gf[j])
			if ok {
				continue
			}
			if numeric && skipped < c.SkipTol {
				skipped++
				continue
			}
			return fmt.Sprintf("line %d: %q, reference %q", gl[i].n, clip(gf[j]), clip(wf[j]))
		}
	}
	return ""
}

type line struct {
	n    int
	text string
}

func (c Check) lines(s string) []line {
	var skip []*regexp.Regexp
	for _, p := range c.SkipLines {
		skip = append(skip, regexp.MustCompile(p))
	}
	var out []line
	for i, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		l = strings.TrimRight(l, "\r")
		if c.IgnoreCase {
			l = strings.ToLower(l)
		}
		dropped := false
		for _, re := range skip {
			if re.MatchString(l) {
				dropped = true
				break
			}
		}
		if !dropped {
			out = append(out, line{i + 1, l})
		}
	}
	return out
}

// tokenAgrees compares two words; numeric says both were numbers.
func (c Check) tokenAgrees(want, got string) (ok, numeric bool) {
	if want == got {
		return true, false
	}
	w, err1 := strconv.ParseFloat(want, 64)
	g, err2 := strconv.ParseFloat(got, 64)
	if err1 != nil || err2 != nil {
		return false, false
	}
	if math.IsNaN(w) || math.IsNaN(g) {
		return math.IsNaN(w) && math.IsNaN(g), true
	}
	d := math.Abs(w - g)
	return d <= c.AbsTol || d <= math.Abs(w)*c.RelTol, true
}

// clip shortens a word, a line or a name from the suite for an outcome.
func clip(s string) string { return evidence.Clip(s, 60) }

// readFile reads a whole regular file (inputfile.Open).
func readFile(path string) ([]byte, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func readAtMost(path string, limit int64) ([]byte, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is larger than %d MiB, too large to compare number by number", path, limit>>20)
	}
	return data, err
}
