package results

import (
	"os"
	"path/filepath"
	"time"
)

// RecordGuarded adds msg to the warnings of the run under dir that the
// corepin pid (started at start, in clock ticks since boot) was writing,
// and settles it as crashed as a reader would: the completed runs from
// its journal, the statistics from them. The guard of a killed corepin
// calls it, so that the folder says what the guard ended (msg, "" when
// it ended nothing) and its files hold the runs that finished: a reader
// (report, compare, merge) never writes a folder. Folders written before
// since are not looked at.
func RecordGuarded(dir string, pid int, start uint64, since time.Time, msg string) error {
	runs, err := filepath.Glob(filepath.Join(dir, "*", "run.json"))
	if err != nil {
		return err
	}
	for _, path := range runs {
		if fi, err := os.Stat(path); err != nil || fi.ModTime().Before(since.Add(-time.Second)) {
			continue
		}
		r, err := Load(path)
		if err != nil || r.Writer == nil || r.Writer.PID != pid || r.Writer.StartTicks != start || r.State != StateCrashed {
			continue
		}
		if msg != "" {
			r.Warnings = append(r.Warnings, Warning{Run: NoRun, Kind: KindGuard, Text: msg})
		}
		return (&Folder{Path: filepath.Dir(path)}).Recover(r)
	}
	return nil
}
