package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/results"
)

// withoutSkipped leaves out the benchmarks the suite skips (a program
// they need is not installed); a run left with none is an error that says
// why each was skipped.
func withoutSkipped(benches []bench, skipped []suite.Skip) ([]bench, error) {
	kept := slices.DeleteFunc(benches, func(b bench) bool {
		return slices.ContainsFunc(skipped, func(s suite.Skip) bool { return s.Name == b.name })
	})
	if len(kept) == 0 {
		var why []string
		for _, s := range skipped {
			why = append(why, s.Name+": "+s.Why)
		}
		return nil, fmt.Errorf("every benchmark was skipped: %s", strings.Join(why, "; "))
	}
	return kept, nil
}

// prepareSuite makes the suite's inputs in the results folder's work/
// (removed when the run ends: the inputs are made again, the same, by
// every run) and asks each benchmark's program its version, before any
// run: neither is timed.
func (r *suiteRun) prepareSuite(ctx context.Context) error {
	s := r.cfg.Suite
	if s == nil {
		return nil
	}
	work := filepath.Join(r.folder.Path, "work")
	r.onClose(func() { os.RemoveAll(work) })
	if err := s.Prepare(work); err != nil {
		return err
	}
	for i := range r.benches {
		b := &r.benches[i]
		if b.command == nil {
			continue
		}
		b.version, b.versionErr = s.VersionOf(ctx, *b.command)
		b.checker = s.NewChecker(*b.command, b.version, b.versionErr)
	}
	return nil
}

// unversioned are the programs that could not tell their version: their
// signatures cannot be checked.
func unversioned(benches []bench) []judge.Unversioned {
	var u []judge.Unversioned
	for _, b := range benches {
		if b.versionErr != nil {
			u = append(u, judge.Unversioned{Name: b.name, Why: b.versionErr.Error()})
		}
	}
	return u
}

// measureOf is what a suite command is judged by: its metric, nil for its
// wall time.
func measureOf(m *suite.Metric) *results.Measured {
	if m == nil {
		return nil
	}
	return &results.Measured{Measure: results.Measure{Name: m.Name, Unit: m.Unit, Better: m.Better}, Reference: m.Reference}
}
