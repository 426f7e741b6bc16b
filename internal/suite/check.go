package suite

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"corepin.dev/corepin/internal/inputfile"
	"corepin.dev/corepin/results/evidence"
)

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
func bounded(o evidence.Outcome) evidence.Outcome {
	o.What, o.Detail = evidence.Clip(o.What, MaxOutcomeText), evidence.Clip(o.Detail, MaxOutcomeText)
	return o
}

// RunFile applies the check to a run's output (its standard output and
// error in files, the files it wrote in its folder), reading as a stream
// where the check allows, so that the memory it takes does not grow with
// the output. A signature or a recorded digest needs what earlier runs
// showed and the records: a Checker applies those.
func (c Check) RunFile(s *Suite, out Output) evidence.Outcome {
	return bounded(c.runFile(s, out))
}

func (c Check) runFile(s *Suite, out Output) evidence.Outcome {
	subject := c.subject()
	streams := out.streams(c.Stdout, c.Stderr, c.File)
	switch {
	case c.SHA256 != "" && c.SHA256 != Recorded:
		sum, err := digest(streams)
		if err != nil {
			return evidence.Outcome{What: subject, Detail: err.Error()}
		}
		return c.sha(subject, sum)
	case c.SHA256Of != "":
		return c.sameDigest(subject, streams, out.file(c.SHA256Of))
	case c.Regex != "":
		return c.match(subject, streams)
	case c.Expected != "":
		r, err := openStreams(streams)
		if err != nil {
			return evidence.Outcome{What: subject, Detail: err.Error()}
		}
		defer r.Close()
		data, err := io.ReadAll(io.LimitReader(r, MaxCompared+1))
		if err != nil {
			return evidence.Outcome{What: subject, Detail: err.Error()}
		}
		if len(data) > MaxCompared {
			return evidence.Outcome{What: subject, Detail: fmt.Sprintf("larger than %d MiB, too large to compare number by number; use sha256 or regex", MaxCompared>>20)}
		}
		return c.expected(s, subject, data)
	}
	return evidence.Outcome{What: subject, Detail: "a signature or a recorded digest is checked by a Checker"}
}

// subject names what the check reads.
func (c Check) subject() string { return subjectName(c.Stdout, c.Stderr, c.File) }

// digest is the SHA-256 of the streams one after the other.
func digest(streams []stream) ([]byte, error) {
	r, err := openStreams(streams)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// sameDigest passes when the output's SHA-256 is the file's: a round
// trip's decompressed bytes against its input's.
func (c Check) sameDigest(subject string, streams []stream, file string) evidence.Outcome {
	o := evidence.Outcome{What: fmt.Sprintf("%s has the SHA-256 of %s", clip(subject), clip(c.SHA256Of))}
	got, err := digest(streams)
	if err != nil {
		o.Detail = err.Error()
		return o
	}
	want, err := digest([]stream{{c.SHA256Of, file}})
	if err != nil {
		o.Detail = "reading " + c.SHA256Of + ": " + err.Error()
		return o
	}
	o.Passed = bytes.Equal(got, want)
	if !o.Passed {
		o.Detail = fmt.Sprintf("SHA-256 %s, %s's is %s", hex.EncodeToString(got)[:16]+"…", c.SHA256Of, hex.EncodeToString(want)[:16]+"…")
	}
	return o
}

// match passes when a line of the streams matches the regular expression.
func (c Check) match(subject string, streams []stream) evidence.Outcome {
	o := evidence.Outcome{What: fmt.Sprintf("%s matches /%s/", clip(subject), clip(c.Regex))}
	re := regexp.MustCompile(c.Regex)
	for _, s := range streams {
		f, err := inputfile.Open(s.path)
		if err != nil {
			o.Detail = err.Error()
			return o
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), maxLine)
		for sc.Scan() {
			if re.Match(sc.Bytes()) {
				f.Close()
				o.Passed = true
				return o
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			o.Detail = fmt.Sprintf("no match before a line that could not be read (%v; lines are matched up to %d MiB)", err, maxLine>>20)
			return o
		}
	}
	o.Detail = "no match"
	return o
}

func (c Check) sha(subject string, sum []byte) evidence.Outcome {
	got := hex.EncodeToString(sum)
	o := evidence.Outcome{What: subject + " has SHA-256 " + c.SHA256[:12] + "…", Passed: strings.EqualFold(got, c.SHA256)}
	if !o.Passed {
		o.Detail = "SHA-256 is " + got
	}
	return o
}

func (c Check) expected(s *Suite, subject string, data []byte) evidence.Outcome {
	want, err := readAtMost(s.Resolve(c.Expected), MaxCompared)
	if err != nil {
		return evidence.Outcome{What: subject, Detail: "reading the expected output: " + err.Error()}
	}
	o := evidence.Outcome{What: fmt.Sprintf("%s matches %s (abstol %g, reltol %g)", clip(subject), clip(c.Expected), c.AbsTol, c.RelTol)}
	o.Detail = c.Compare(string(want), string(data))
	o.Passed = o.Detail == ""
	return o
}

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
			if numeric {
				return fmt.Sprintf("line %d: %q, reference %q: %s", gl[i].n, clip(gf[j]), clip(wf[j]), c.beyond(wf[j], gf[j], skipped))
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
	return d <= c.AbsTol || d <= math.Abs(w)*c.RelTol || (c.Obiwan && offByOne(want, got)), true
}

// beyond says how far a number is off and which tolerances it is beyond,
// as specdiff's --showerr does: "off by 0.25 (20%): beyond reltol 1e-06,
// abstol 0".
func (c Check) beyond(want, got string, skipped int) string {
	w, _ := strconv.ParseFloat(want, 64)
	g, _ := strconv.ParseFloat(got, 64)
	d := math.Abs(w - g)
	s := fmt.Sprintf("off by %.3g", d)
	if w != 0 {
		s += fmt.Sprintf(" (%.3g%%)", 100*d/math.Abs(w))
	}
	s += fmt.Sprintf(": beyond reltol %g, abstol %g", c.RelTol, c.AbsTol)
	if c.Obiwan {
		s += ", obiwan"
	}
	if c.SkipTol > 0 {
		s += fmt.Sprintf(", skiptol %d", c.SkipTol)
	}
	return s
}

// offByOne says whether two numbers as written differ by at most one in
// their last digit, as specdiff's obiwan judges it: both mantissas scaled
// to the same decimal places and exponent, less than 1.5 apart.
func offByOne(want, got string) bool {
	wm, we, ok1 := mantissa(want)
	gm, ge, ok2 := mantissa(got)
	if !ok1 || !ok2 {
		return false
	}
	places := max(decimals(wm), decimals(gm))
	a, err1 := strconv.ParseFloat(wm, 64)
	b, err2 := strconv.ParseFloat(gm, 64)
	if err1 != nil || err2 != nil || places > 300 || we-ge > 300 || ge-we > 300 {
		return false
	}
	a, b = a*math.Pow10(places), b*math.Pow10(places)
	if d := we - ge; d < 0 {
		b *= math.Pow10(-d)
	} else {
		a *= math.Pow10(d)
	}
	return a != b && math.Abs(a-b) < 1.5
}

// mantissa splits a number as written into its mantissa and exponent
// (1.5e-3: "1.5", -3; Fortran's 1.5D-3 too).
func mantissa(s string) (string, int, bool) {
	i := strings.IndexAny(s, "eEdD")
	if i < 0 {
		return s, 0, true
	}
	e, err := strconv.Atoi(s[i+1:])
	return s[:i], e, err == nil
}

// decimals counts the digits after a mantissa's point.
func decimals(m string) int {
	if i := strings.IndexByte(m, '.'); i >= 0 {
		return len(m) - i - 1
	}
	return 0
}

// clip shortens a word, a line or a name from the suite for an outcome.
func clip(s string) string { return evidence.Clip(s, 60) }

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
