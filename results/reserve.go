package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// A run appends each finished run to its journal and writes run.json
// whole at its end. When the disk fills up in between, the append fails,
// the run stops, and the final run.json, a few kilobytes a run, no longer
// fits: the folder would keep saying "running, 0 runs" beside a journal
// of finished ones. So a run's folder holds a reserve of disk space from
// its start, sized for its plan, which a save that finds the disk full
// gives back before it tries again: the finished runs reach run.json.

// reserveFile holds the folder's reserve of disk space.
const reserveFile = ".corepin-reserve"

// ReserveFor is the reserve a run of planned runs (warm-ups included)
// keeps: about twice what a run adds to run.json here (7 KiB, indented),
// and room for the folder's other files; at most 64 MiB.
func ReserveFor(planned int) int64 {
	return min(int64(planned)*16<<10+256<<10, 64<<20)
}

// Reserve sets size bytes of the folder's disk aside for its last save.
// A disk that cannot spare them now is no error: the save then finds what
// it finds.
func (f *Folder) Reserve(size int64) {
	path := filepath.Join(f.Path, reserveFile)
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return
	}
	err = allocate(file, size)
	if err != nil && !errors.Is(err, syscall.ENOSPC) {
		// A file system without fallocate: the blocks are written.
		_, err = io.CopyN(file, zeros{}, size)
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
}

// release gives the reserve back; it says whether there was one.
func (f *Folder) release() bool {
	return os.Remove(filepath.Join(f.Path, reserveFile)) == nil
}

// full says whether err is a disk that is full (or a quota used up).
func full(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// zeros reads as zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// KeepElsewhere writes the run's files into a new folder in $TMPDIR when
// its own folder cannot take them (its disk is full even without the
// reserve), and returns that folder: what finished is never lost because
// one disk filled up. Its run.json says where the run's own folder is.
func (f *Folder) KeepElsewhere(r *Run, why error) (*Folder, error) {
	dir, err := os.MkdirTemp("", "corepin-results-"+filepath.Base(f.Path)+"-")
	if err != nil {
		return nil, err
	}
	kept := &Folder{Path: dir}
	r.Warnings = append(r.Warnings, Warning{Run: NoRun, Kind: KindKeptElsewhere,
		Text: fmt.Sprintf("kept here because the run's own folder %s could not be written (%v); its journal.jsonl and telemetry are there", f.Path, why)})
	if err := kept.save(r); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return kept, nil
}
