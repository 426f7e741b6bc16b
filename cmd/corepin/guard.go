package main

import (
	"os"
	"path/filepath"
	"time"

	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
)

// The guard (see launch's guard) records what it did in the run a killed
// corepin was writing; it runs before main's work, so the hook is set in
// the initialisation.
func init() { launch.RecordGuarded = recordGuarded }

// recordGuarded adds msg to the warnings of the run under dir that the
// corepin pid (started at start) was writing, and settles it as crashed
// as a reader would: the completed runs from its journal, the statistics
// from them. Folders written before since are not looked at.
func recordGuarded(dir string, pid int, start uint64, since time.Time, msg string) error {
	runs, err := filepath.Glob(filepath.Join(dir, "*", "run.json"))
	if err != nil {
		return err
	}
	for _, path := range runs {
		if fi, err := os.Stat(path); err != nil || fi.ModTime().Before(since.Add(-time.Second)) {
			continue
		}
		r, err := results.Load(path)
		if err != nil || r.Writer == nil || r.Writer.PID != pid || r.Writer.StartTicks != start || r.State != results.StateCrashed {
			continue
		}
		r.Warnings = append(r.Warnings, msg)
		return (&results.Folder{Path: filepath.Dir(path)}).Recover(r)
	}
	return nil
}
