// Package timeline is who ran on the target from when to when, as the
// scheduler's switch events told the on-CPU tracer, and the CSV a results
// folder keeps of it for each run: written by the runner, read by the
// trace view without the tracer. It is a leaf, so that a reader of a
// results folder does not link the BPF loader.
package timeline

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/results/evidence"
)

// csvHeader is the first line WriteCSV writes and ReadCSV expects.
var csvHeader = []string{"start_s", "end_s", "cpu", "pid", "tid", "on_cpu_s", "work", "comm"}

// WriteCSV writes one row per slice:
// start_s,end_s,cpu,pid,tid,on_cpu_s,work,comm. Times are to the
// nanosecond; a thread's name is outside text, shown with its control
// characters made visible (termsafe.Text).
func WriteCSV(w io.Writer, sl []evidence.Slice) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, s := range sl {
		work := "0"
		if s.Work {
			work = "1"
		}
		cw.Write([]string{
			strconv.FormatFloat(s.Start, 'f', 9, 64),
			strconv.FormatFloat(s.End, 'f', 9, 64),
			strconv.Itoa(s.CPU), strconv.Itoa(s.PID), strconv.Itoa(s.TID),
			strconv.FormatFloat(s.OnCPUS, 'f', 9, 64),
			work, termsafe.Text(s.Comm),
		})
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads at most limit slices of a CSV that WriteCSV wrote; more
// rows than that are an error, as a results folder may come from anyone.
// A row that is not a slice is an error naming its line; the slices before
// it are returned with the error.
func ReadCSV(r io.Reader, limit int) ([]evidence.Slice, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	out := []evidence.Slice{}
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("reading a timeline CSV: %w", err)
	}
	if len(head) < len(csvHeader) || !slices.Equal(head[:len(csvHeader)], csvHeader) {
		return out, fmt.Errorf("reading a timeline CSV: the header is %q, want %q", strings.Join(head, ","), strings.Join(csvHeader, ","))
	}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("reading a timeline CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if len(out) == limit {
			return out, fmt.Errorf("reading a timeline CSV, line %d: more than %d slices", line, limit)
		}
		s, err := parseSlice(row)
		if err != nil {
			return out, fmt.Errorf("reading a timeline CSV, line %d: %w", line, err)
		}
		out = append(out, s)
	}
}

func parseSlice(row []string) (evidence.Slice, error) {
	if len(row) < len(csvHeader) {
		return evidence.Slice{}, fmt.Errorf("%d fields, want %d", len(row), len(csvHeader))
	}
	var s evidence.Slice
	var err error
	for i, f := range []*float64{&s.Start, &s.End, &s.OnCPUS} {
		col := []int{0, 1, 5}[i]
		if *f, err = strconv.ParseFloat(row[col], 64); err != nil || math.IsInf(*f, 0) {
			return evidence.Slice{}, fmt.Errorf("%s %q is not a number", csvHeader[col], row[col])
		}
	}
	if !(s.Start <= s.End) || !(s.OnCPUS >= 0) {
		return evidence.Slice{}, fmt.Errorf("a slice from %s to %s with %s s on the CPU", row[0], row[1], row[5])
	}
	for i, n := range []*int{&s.CPU, &s.PID, &s.TID} {
		col := 2 + i
		if *n, err = strconv.Atoi(row[col]); err != nil || *n < 0 {
			return evidence.Slice{}, fmt.Errorf("%s %q is not a number", csvHeader[col], row[col])
		}
	}
	switch row[6] {
	case "1":
		s.Work = true
	case "0":
	default:
		return evidence.Slice{}, fmt.Errorf("work %q is neither 0 nor 1", row[6])
	}
	s.Comm = row[7]
	return s, nil
}
