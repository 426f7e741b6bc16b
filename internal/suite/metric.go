package suite

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"corepin.dev/corepin/internal/inputfile"
)

// The scores of a Geekbench export a metric may read.
const (
	GeekbenchSingle = "score"
	GeekbenchMulti  = "multicore_score"
)

func (m *Metric) validate() error {
	switch {
	case (m.Stdout || m.Stderr) == (m.File != ""):
		return errors.New("give exactly one of stdout = true (or stderr = true, or both) and file")
	case (m.Regex != "") == (m.Geekbench != ""):
		return errors.New("give exactly one of regex and geekbench")
	case m.Geekbench != "" && m.Geekbench != GeekbenchSingle && m.Geekbench != GeekbenchMulti:
		return fmt.Errorf("geekbench %q: give %q or %q", m.Geekbench, GeekbenchSingle, GeekbenchMulti)
	case m.Geekbench != "" && m.File == "":
		return errors.New("geekbench reads the export the run writes: give its file")
	case m.Reference != nil && (!(*m.Reference > 0) || math.IsInf(*m.Reference, 0)):
		return fmt.Errorf("reference %v: give the value on the reference machine, above 0", *m.Reference)
	case m.File != "" && !filepath.IsLocal(m.File):
		return fmt.Errorf("file %q: give a file of the benchmark's folder", m.File)
	}
	switch {
	case m.Name == "" || len(m.Name) > 60:
		return errors.New("give the metric a name (at most 60 bytes), such as \"Nodes/second\"")
	case !unitRE().MatchString(m.Unit):
		return fmt.Errorf("unit %q: give one word of at most 32 bytes, such as \"nodes/s\"", m.Unit)
	case m.Better != "higher" && m.Better != "lower":
		return fmt.Errorf("better %q: give \"higher\" or \"lower\"", m.Better)
	}
	if m.Regex != "" {
		return oneGroup("regex", m.Regex)
	}
	return nil
}

// fillDefaults names a Geekbench score's metric, which a suite need not.
func (m *Metric) fillDefaults() {
	if m.Geekbench == "" {
		return
	}
	if m.Name == "" {
		m.Name = "Geekbench " + strings.ReplaceAll(m.Geekbench, "_", " ")
	}
	if m.Unit == "" {
		m.Unit = "score"
	}
	if m.Better == "" {
		m.Better = "higher"
	}
}

var unitRE = lazyRE(`^[^\s\x00-\x1f\x7f]{1,32}$`)

// Value reads the metric from a run's output: the number the regular
// expression's group captures on the last line that matches, or the
// Geekbench export's score. A line that matches with no number, or a
// number that is not finite and at least 0, is no value.
func (m *Metric) Value(out Output) (float64, error) {
	if m.Geekbench != "" {
		return m.geekbenchScore(out)
	}
	text, found, err := lastCapture(out.streams(m.Stdout, m.Stderr, m.File), m.Regex)
	switch {
	case err != nil:
		return 0, err
	case !found:
		return 0, fmt.Errorf("no line of %s matches /%s/", subjectName(m.Stdout, m.Stderr, m.File), clip(m.Regex))
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("%s printed %q, not a number", m.Name, clip(text))
	}
	return v, nil
}

// geekbenchScore is the export's single-core or multi-core score.
func (m *Metric) geekbenchScore(out Output) (float64, error) {
	data, err := readAtMost(out.file(m.File), 64<<20)
	if err != nil {
		return 0, fmt.Errorf("reading the Geekbench export: %w", err)
	}
	var export map[string]json.RawMessage
	if err := json.Unmarshal(data, &export); err != nil {
		return 0, fmt.Errorf("the Geekbench export %s: %w", m.File, err)
	}
	var v float64
	if raw, ok := export[m.Geekbench]; !ok || json.Unmarshal(raw, &v) != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("the Geekbench export %s has no %s", m.File, m.Geekbench)
	}
	return v, nil
}

// lastCapture is the group of re on the last line of the streams that
// matches it, read line by line.
func lastCapture(streams []stream, expr string) (text string, found bool, err error) {
	re := regexp.MustCompile(expr)
	for _, s := range streams {
		f, err := inputfile.Open(s.path)
		if err != nil {
			return "", false, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), maxLine)
		for sc.Scan() {
			if m := re.FindSubmatch(sc.Bytes()); m != nil {
				text, found = string(m[1]), true
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return "", false, fmt.Errorf("reading %s: %w (lines are read up to %d MiB)", s.name, err, maxLine>>20)
		}
	}
	return text, found, nil
}

// Output is where a run left what its checks and metric read: its
// standard output and error, kept in files, and the folder it ran in,
// where the files it writes are.
type Output struct {
	Stdout, Stderr string
	Dir            string
}

// stream is one file a check reads, and its name for a reader.
type stream struct{ name, path string }

// file is a path a check names, in the run's folder.
func (o Output) file(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(o.Dir, p)
}

// streams are what a check or a metric reads: standard output, standard
// error, both in that order, or a file.
func (o Output) streams(stdout, stderr bool, file string) []stream {
	if file != "" {
		return []stream{{file, o.file(file)}}
	}
	var s []stream
	if stdout {
		s = append(s, stream{"stdout", o.Stdout})
	}
	if stderr {
		s = append(s, stream{"stderr", o.Stderr})
	}
	return s
}

// open reads the streams one after the other.
func openStreams(streams []stream) (io.ReadCloser, error) {
	var readers []io.Reader
	var files []*os.File
	for _, s := range streams {
		f, err := inputfile.Open(s.path)
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, err
		}
		files = append(files, f)
		readers = append(readers, f)
	}
	return multiCloser{io.MultiReader(readers...), files}, nil
}

type multiCloser struct {
	io.Reader
	files []*os.File
}

func (m multiCloser) Close() error {
	var errs []error
	for _, f := range m.files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// subjectName names what a check reads: "stdout", "stderr", "stdout and
// stderr" or the file.
func subjectName(stdout, stderr bool, file string) string {
	switch {
	case file != "":
		return file
	case stdout && stderr:
		return "stdout and stderr"
	case stderr:
		return "stderr"
	}
	return "stdout"
}
