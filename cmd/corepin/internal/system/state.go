package system

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/results/evidence"
)

// ReadJournalState reads the journal at path (DefaultJournal under root
// when path is "") as a reset would, and what it says of the machine now.
// On the live machine it also looks at the cgroup this process runs in: a
// shield's, named as cgroupfs names one, is reported even when the journal
// cannot tell of it. Nil when there is nothing to say.
func ReadJournalState(root fsroot.Root, path string) *evidence.JournalState {
	m := &Machine{Root: root, Journal: path}
	st := &evidence.JournalState{Journal: m.JournalPath()}
	r := &reader{root: root}
	// The online CPUs matter only to a shield, which is rare: every
	// corepin command starts by asking.
	online := func() cpuset.Set { cpus, _ := r.list(cpuDir + "/online"); return cpus }
	if _, err := os.Lstat(st.Journal); err == nil {
		j, err := m.loadJournal()
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe) && pe.Path == st.Journal && errors.Is(err, fs.ErrPermission):
			st.Error = fmt.Sprintf("the journal %s is root's and only root may read it: root's corepin tuned the machine; `sudo corepin system show` says what the journal holds", st.Journal)
		case err != nil:
			st.Error = err.Error()
		default:
			for _, l := range j.Layers {
				st.Tunes = append(st.Tunes, tuneLayer(l))
				for _, e := range l.Entries {
					if e.Op != evidence.OpMkdir || !cgroupfs.IsShield(filepath.Base(e.Path)) {
						continue
					}
					others, ok := r.list(e.Path + "/cpuset.cpus")
					if !ok {
						continue // gone: taken down by hand
					}
					st.Shields = append(st.Shields, evidence.ShieldUp{Cgroup: e.Path, CPUs: online().Difference(others), Others: others, TuneLayer: tuneLayer(l),
						Inside: root.IsHost() && insideCgroup(root, root.Path(e.Path))})
				}
			}
		}
	}
	if root.IsHost() && !slices.ContainsFunc(st.Shields, func(s evidence.ShieldUp) bool { return s.Inside }) {
		if dir := shieldAround(root); dir != "" {
			rel := strings.TrimPrefix(dir, "/")
			others, _ := r.list(rel + "/cpuset.cpus")
			mark, _ := cgroupfs.ParseShieldName(filepath.Base(dir))
			st.Shields = append(st.Shields, evidence.ShieldUp{Cgroup: rel, CPUs: online().Difference(others), Others: others, TuneLayer: evidence.TuneLayer{PID: mark.Owner.PID}, Inside: true})
		}
	}
	if st.Error == "" && len(st.Tunes) == 0 && len(st.Shields) == 0 {
		return nil
	}
	return st
}

// tuneLayer describes a layer of the journal.
func tuneLayer(l Layer) evidence.TuneLayer {
	return evidence.TuneLayer{Command: l.Command, PID: l.Owner.PID, Started: l.Started, Changes: len(l.Entries), Running: l.Owner.Alive(fsroot.Host)}
}

// JournalWarnings are the warnings of the live machine's journal at path
// (see JournalState.Warnings), for every corepin command's start.
func JournalWarnings(path string) []string {
	return ReadJournalState(fsroot.Host, path).Warnings()
}
