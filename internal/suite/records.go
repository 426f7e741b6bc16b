package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/internal/atomicfile"
)

// Records are the signatures corepin recorded: the value a check gave the
// first time a version of a program ran it — a compiler's assembly digest,
// a chess engine's node count where the suite does not know it — held
// against every later run of that version, in this corepin run and every
// later one. They live in the user's state folder,
// $XDG_STATE_HOME/corepin/signatures.json ($HOME/.local/state/corepin/
// by default): outside any suite, which may be read-only or shared, and
// outside results folders, which come and go.
//
// A record is what makes a wrong output fail, so it is trusted only as
// far as the file is: the folder and the file must be the user's own,
// written by no one else (no group or other write permission, no symbolic
// link), or no record is read or made and the checks that need one fail,
// saying why. The file is replaced whole (internal/atomicfile) under a
// lock, so two corepin runs recording at once lose nothing.
type Records struct {
	dir string
}

// RecordsSchema names the version of signatures.json.
const RecordsSchema = "corepin.signatures/v1"

// maxRecordsFile bounds what is read: a record is a few hundred bytes.
const maxRecordsFile = 8 << 20

// Record is one recorded signature.
type Record struct {
	// Key is the SHA-256 of everything that decides the value: the
	// benchmark's command line, environment and inputs, the check, the
	// version line and the architecture. A suite edited in any of these
	// records anew.
	Key       string    `json:"key"`
	Benchmark string    `json:"benchmark"`
	Check     string    `json:"check"`
	Version   string    `json:"version"`
	Value     string    `json:"value"`
	Suite     string    `json:"suite"`
	Recorded  time.Time `json:"recorded"`
}

type recordsFile struct {
	Schema  string   `json:"schema"`
	Records []Record `json:"records"`
}

// RecordsDir is the folder of the user's records: $XDG_STATE_HOME/corepin,
// else $HOME/.local/state/corepin.
func RecordsDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "corepin"), nil
	}
	home := os.Getenv("HOME")
	if !filepath.IsAbs(home) {
		return "", errors.New("neither $XDG_STATE_HOME nor $HOME names a folder for corepin's records")
	}
	return filepath.Join(home, ".local", "state", "corepin"), nil
}

// OpenRecords opens the user's records, making their folder (0700) on
// first use, and refuses one that someone else could have written.
func OpenRecords() (*Records, error) {
	dir, err := RecordsDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making the records' folder: %w", err)
	}
	if err := ownOnly(dir, true); err != nil {
		return nil, err
	}
	return &Records{dir: dir}, nil
}

// Path is the records' file.
func (r *Records) Path() string { return filepath.Join(r.dir, "signatures.json") }

// ownOnly refuses a path that is not this user's own, that others may
// write, or that is a symbolic link (or, for the file, not a regular file).
func ownOnly(path string, dir bool) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	kind := st.Mode & unix.S_IFMT
	switch {
	case dir && kind != unix.S_IFDIR:
		return fmt.Errorf("the records' folder %s is not a folder (a symbolic link is not trusted)", path)
	case !dir && kind != unix.S_IFREG:
		return fmt.Errorf("the records %s are not a regular file (a symbolic link is not trusted)", path)
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("the records %s belong to uid %d, not to this user (%d): not trusted", path, st.Uid, os.Geteuid())
	case st.Mode&0o022 != 0:
		return fmt.Errorf("the records %s may be written by others (mode %o): not trusted", path, st.Mode&0o777)
	}
	return nil
}

// Hold returns the record of rec.Key: the one already recorded, or rec
// itself, recorded now (fresh).
func (r *Records) Hold(rec Record) (held Record, fresh bool, err error) {
	unlock, err := r.lock()
	if err != nil {
		return Record{}, false, err
	}
	defer unlock()
	f, err := r.read()
	if err != nil {
		return Record{}, false, err
	}
	for _, old := range f.Records {
		if old.Key == rec.Key {
			return old, false, nil
		}
	}
	f.Records = append(f.Records, rec)
	err = atomicfile.Write(r.Path(), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	})
	if err != nil {
		return Record{}, false, fmt.Errorf("recording a signature: %w", err)
	}
	return rec, true, nil
}

// read reads the records, none when the file is not there yet.
func (r *Records) read() (recordsFile, error) {
	f := recordsFile{Schema: RecordsSchema, Records: []Record{}}
	if _, err := os.Lstat(r.Path()); errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err := ownOnly(r.Path(), false); err != nil {
		return f, err
	}
	data, err := readAtMost(r.Path(), maxRecordsFile)
	if err != nil {
		return f, fmt.Errorf("reading the records: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil || f.Schema != RecordsSchema {
		return f, fmt.Errorf("the records %s are not corepin's (schema %q, %v): move the file away to record anew", r.Path(), f.Schema, err)
	}
	return f, nil
}

// lock takes the records' lock, a file beside them, until unlock.
func (r *Records) lock() (unlock func(), err error) {
	p := filepath.Join(r.dir, "signatures.lock")
	fd, err := unix.Open(p, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if err := unix.Flock(fd, unix.LOCK_EX); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "flock", Path: p, Err: err}
	}
	return func() { unix.Close(fd) }, nil
}
