package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"corepin.dev/corepin/internal/termsafe"
)

// JournalFile is the append-only record of a run's finished runs, one JSON
// line each, in the results folder. run.json is rewritten from it at the
// end of a run, or by a later reader when the run crashed; appending a
// line costs the same at the last run as at the first.
const JournalFile = "journal.jsonl"

// maxJournalLine bounds one line: a run record with its scheduling and
// watcher reports is a few kilobytes; a longer line is not corepin's.
const maxJournalLine = 16 << 20

// entry is one line of the journal.
type entry struct {
	Benchmark string    `json:"benchmark"`
	Record    RunRecord `json:"record"`
}

// Journal appends finished runs to a folder's journal.
type Journal struct {
	f *os.File
}

// OpenJournal opens the folder's journal for appending, creating it.
func (f *Folder) OpenJournal() (*Journal, error) {
	file, err := os.OpenFile(filepath.Join(f.Path, JournalFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the journal: %w", err)
	}
	return &Journal{f: file}, nil
}

// Append writes one finished run as a line and waits until it is on disk,
// so that a crash a moment later still leaves it recorded.
func (j *Journal) Append(benchmark string, rec *RunRecord) error {
	line, err := json.Marshal(entry{Benchmark: benchmark, Record: *rec})
	if err != nil {
		return fmt.Errorf("recording a run of %s: %w", benchmark, err)
	}
	if _, err := j.f.Write(append(termsafe.JSON(line), '\n')); err != nil {
		return fmt.Errorf("recording a run of %s: %w", benchmark, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("recording a run of %s: %w", benchmark, err)
	}
	return nil
}

// Close closes the journal.
func (j *Journal) Close() error { return j.f.Close() }

// replay adds the journal's runs to the benchmarks of r. A line cut short
// by a crash ends the journal; it is not an error.
func replay(r *Run, rd io.Reader) error {
	byName := map[string]*Benchmark{}
	for i := range r.Benchmarks {
		byName[r.Benchmarks[i].Name] = &r.Benchmarks[i]
	}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), maxJournalLine)
	for sc.Scan() {
		var e entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			break // the last line, half written
		}
		switch b := byName[e.Benchmark]; {
		case b == nil:
		case e.Record.Dropped != "":
			b.DroppedRuns = append(b.DroppedRuns, e.Record)
		default:
			b.Runs = append(b.Runs, e.Record)
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("reading the journal: %w", err)
	}
	return nil
}
