package system

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/inputfile"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
)

// JournalSchema names the journal's format. Version 2 added the boot ID.
const JournalSchema = "corepin.system-journal/2"

// journalSchema1 is the format before the boot ID: such a journal may be
// of another boot, and is applied only when the user says it is not
// (Machine.ThisBoot).
const journalSchema1 = "corepin.system-journal/1"

// DefaultJournal is where the journal lives under a root: /run is a tmpfs
// that a reboot empties, as a reboot also puts back every value the
// journal holds.
const DefaultJournal = "run/corepin/system.json"

// Journal is the record of every value corepin changed and has not put
// back yet. It is written durably before each change, so that whatever
// happens to the process, Reset can restore what was there.
type Journal struct {
	Schema string `json:"schema"`
	// Root is the folder the paths are relative to.
	Root fsroot.Root `json:"root"`
	// BootID is the kernel's boot ID when the journal was made
	// (proc/sys/kernel/random/boot_id under the root; "" where the root
	// has none). A journal of another boot is never applied: the restart
	// put every value back, and the TIDs and start times of its entries
	// repeat from boot to boot, naming other tasks now.
	BootID string  `json:"boot_id"`
	Layers []Layer `json:"layers"`
}

// Layer is what one process changed. A second tune adds a layer; each
// layer keeps the values it found, so the first old values are never lost
// and one run can undo its own changes alone.
type Layer struct {
	Owner   Owner            `json:"owner"`
	Command string           `json:"command"`
	Started time.Time        `json:"started"`
	Entries []evidence.Entry `json:"entries"`
	// Kept marks the layer of a system tune that completed: it stands
	// until `corepin system reset`, and its process's guard, which puts
	// back a tune cut short, leaves it.
	Kept bool `json:"kept,omitempty"`
}

// Owner is the process that made a layer, by PID and start time (PIDs are
// reused).
type Owner struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start_ticks"`
}

// maxJournal bounds what is read of a journal: a few thousand entries
// fill a few hundred kilobytes.
const maxJournal = 64 << 20

// loadJournal reads the machine's journal, a missing file being an empty
// one, and checks that root may act on it: a trusted file (openJournal)
// of this boot whose entries all lie in the kernel's trees. Nothing is
// written before it returns, so a journal refused for any reason changes
// nothing.
func (m *Machine) loadJournal() (*Journal, error) {
	path := m.JournalPath()
	boot, err := bootID(m.Root)
	if err != nil {
		return nil, err
	}
	f, err := m.openJournal()
	if err != nil {
		return nil, err
	}
	if f == nil {
		return &Journal{Schema: JournalSchema, Root: m.Root, BootID: boot}, nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxJournal))
	if err != nil {
		return nil, fmt.Errorf("reading the journal: %w", err)
	}
	var j Journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("%w: the journal %s cannot be read (%v). A save replaces it whole, so something else damaged it, and corepin cannot tell what it held: "+
			"restarting the machine puts back every value it may hold; or write back by hand the \"old\" values still legible in it; then remove %s",
			ErrDamagedJournal, path, err, path)
	}
	switch j.Schema {
	case JournalSchema:
	case journalSchema1:
		if !m.ThisBoot {
			made := ""
			if fi, err := f.Stat(); err == nil {
				made = ", last written " + fi.ModTime().Local().Format("2006-01-02 15:04:05")
			}
			return nil, fmt.Errorf("%w: the journal %s records no boot ID (an older corepin wrote it%s), so it may be of another boot, whose task IDs and start times now name other tasks; "+
				"if the machine has not restarted since, corepin system reset --this-boot puts it back; otherwise there is nothing to restore; remove %s",
				ErrOtherBoot, path, made, path)
		}
		j.Schema, j.BootID = JournalSchema, boot
	default:
		return nil, fmt.Errorf("%w: the journal %s has schema %q, want %q", ErrDamagedJournal, path, j.Schema, JournalSchema)
	}
	if j.BootID != boot {
		return nil, fmt.Errorf("%w: the journal %s was made in another boot (boot ID %s, now %s): the machine was restarted since, there is nothing to restore; remove %s",
			ErrOtherBoot, path, evidence.OrNone(j.BootID), evidence.OrNone(boot), path)
	}
	if err := m.checkEntries(&j); err != nil {
		return nil, err
	}
	return &j, nil
}

// ReadJournal reads the journal at path, for a look at it; nil when there
// is none. It checks nothing: what it returns is never applied (a reset
// reads the journal through the Machine, which trusts only what root may
// act on).
func ReadJournal(path string) (*Journal, error) {
	f, err := inputfile.Open(path)
	var data []byte
	if err == nil {
		data, err = io.ReadAll(io.LimitReader(f, maxJournal))
		f.Close()
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the journal: %w", err)
	}
	var j Journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDamagedJournal, path, err)
	}
	if len(j.Layers) == 0 {
		return nil, nil
	}
	return &j, nil
}

// save writes the journal durably: to a temporary file that is synced,
// renamed over the journal, and the folder synced, so that after a crash
// the journal is either the old one or the new one, whole. An empty
// journal is removed.
func (j *Journal) save(path string) error {
	kept := *j
	kept.Layers = nil
	for _, l := range j.Layers {
		if len(l.Entries) > 0 {
			kept.Layers = append(kept.Layers, l)
		}
	}
	if len(kept.Layers) == 0 {
		err := os.Remove(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the journal: %w", err)
		}
		return syncDir(filepath.Dir(path))
	}
	for _, l := range kept.Layers {
		for _, e := range l.Entries {
			if !utf8.ValidString(e.Old) {
				return fmt.Errorf("journal: the old content of %s is not text", e.Path)
			}
		}
	}
	data, err := json.MarshalIndent(kept, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return fmt.Errorf("writing the journal: %w", err)
	}
	// Gone after the rename; after a failure, removed here; after a
	// SIGKILL, by the next lock (sweepTemps).
	defer os.Remove(tmp.Name())
	// Readable by all, as the state of the machine is: any user's corepin
	// says the machine is tuned, or that it runs inside a shield.
	err = tmp.Chmod(0o644)
	if err == nil {
		_, err = tmp.Write(append(data, '\n'))
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing the journal %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// layer returns the layer of owner, adding one if there is none.
func (j *Journal) layer(o Owner, command string) *Layer {
	for i := range j.Layers {
		if j.Layers[i].Owner == o {
			return &j.Layers[i]
		}
	}
	j.Layers = append(j.Layers, Layer{Owner: o, Command: command, Started: time.Now()})
	return &j.Layers[len(j.Layers)-1]
}

func (j *Journal) dropEmpty() {
	kept := j.Layers[:0]
	for _, l := range j.Layers {
		if len(l.Entries) > 0 {
			kept = append(kept, l)
		}
	}
	j.Layers = kept
}

// self is the running process as a journal owner. A journal's owners
// are processes of the running system, whatever root its files are read
// under, so their identity is read in the host's /proc.
func self() Owner {
	p, _ := procfs.Identify(fsroot.Host, os.Getpid())
	return Owner{PID: os.Getpid(), Start: p.Start}
}

// Alive reports whether the owner still runs under root's /proc: its
// PID exists with the same start time.
func (o Owner) Alive(root fsroot.Root) bool {
	return procfs.Process{PID: o.PID, Start: o.Start}.Alive(root)
}

// Stale describes the layers of a journal whose processes no longer run,
// for the warning every corepin command prints; "" when there are none.
func (j *Journal) Stale() string {
	if j == nil {
		return ""
	}
	var tunes []evidence.TuneLayer
	for _, l := range j.Layers {
		tunes = append(tunes, tuneLayer(l))
	}
	return evidence.StaleText(tunes)
}
