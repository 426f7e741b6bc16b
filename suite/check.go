package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Outcome is the result of one check.
type Outcome struct {
	What   string `json:"what"` // e.g. "stdout matches ref.out within reltol 1e-4"
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"` // the first difference, when it failed
}

// Run applies the check to a run's output: stdout, and files under dir.
func (c Check) Run(s *Suite, stdout []byte, dir string) Outcome {
	subject := "stdout"
	data := stdout
	if c.File != "" {
		subject = c.File
		p := c.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		var err error
		if data, err = os.ReadFile(p); err != nil {
			return Outcome{What: subject, Detail: err.Error()}
		}
	}
	switch {
	case c.SHA256 != "":
		sum := sha256.Sum256(data)
		got := hex.EncodeToString(sum[:])
		o := Outcome{What: subject + " has SHA-256 " + c.SHA256[:12] + "…", Passed: strings.EqualFold(got, c.SHA256)}
		if !o.Passed {
			o.Detail = "SHA-256 is " + got
		}
		return o
	case c.Regex != "":
		o := Outcome{What: fmt.Sprintf("%s matches /%s/", subject, c.Regex), Passed: regexp.MustCompile(lineMode + c.Regex).Match(data)}
		if !o.Passed {
			o.Detail = "no match"
		}
		return o
	}
	want, err := os.ReadFile(s.Resolve(c.Expected))
	if err != nil {
		return Outcome{What: subject, Detail: "reading the expected output: " + err.Error()}
	}
	o := Outcome{What: fmt.Sprintf("%s matches %s (abstol %g, reltol %g)", subject, c.Expected, c.AbsTol, c.RelTol)}
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
			return fmt.Sprintf("line %d: %q, reference %q", gl[i].n, gf[j], wf[j])
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

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
