package system

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/termsafe"
)

// JournalState is what the machine's journal says when corepin looks: the
// tunes it holds, among them those whose process has ended (the machine
// stays tuned until a reset), and the shields that are up, with whether
// the process that looks runs inside one. Every corepin command says on
// stderr what of it matters (Warnings), and a run records it in run.json
// with the machine's other facts (Facts.Journal).
type JournalState struct {
	Journal string      `json:"journal"`
	Tunes   []TuneLayer `json:"tunes,omitempty"`
	Shields []ShieldUp  `json:"shields,omitempty"`
	// Error says why the journal cannot be used: a reset would refuse it
	// for the same reason.
	Error string `json:"error,omitempty"`
}

// TuneLayer is one process's changes that the journal holds.
type TuneLayer struct {
	Command string    `json:"command"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Changes int       `json:"changes"`
	// Running says that its process still runs, and puts its changes
	// back when it ends; a layer whose process has ended stays until
	// corepin system reset.
	Running bool `json:"running"`
}

// ShieldUp is a shield that is up: the cgroup corepin made for the rest of
// the machine, with the CPUs it keeps for the work.
type ShieldUp struct {
	Cgroup string     `json:"cgroup"` // relative to the root
	CPUs   cpuset.Set `json:"cpus"`   // shielded: the online CPUs the cgroup leaves out
	Others cpuset.Set `json:"others"` // the cgroup's CPUs, as it reads now
	TuneLayer
	// Inside says that the process that read the journal runs in the
	// shield's cgroup: it may use only Others, and the target it
	// measures on is not the shielded CPUs.
	Inside bool `json:"inside"`
}

// shieldPrefix begins the name of a shield's cgroup (shieldName).
const shieldPrefix = "corepin-shield-"

// ReadJournalState reads the journal at path (DefaultJournal under root
// when path is "") as a reset would, and what it says of the machine now.
// On the live machine it also looks at the cgroup this process runs in: a
// shield's, named corepin-shield-PID, is reported even when the journal
// cannot tell of it. Nil when there is nothing to say.
func ReadJournalState(root fsroot.Root, path string) *JournalState {
	m := &Machine{Root: root, Journal: path}
	st := &JournalState{Journal: m.JournalPath()}
	r := &reader{root: root}
	online, _ := r.list(cpuDir + "/online")
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
					if e.Op != OpMkdir || !strings.HasPrefix(filepath.Base(e.Path), shieldPrefix) {
						continue
					}
					others, ok := r.list(e.Path + "/cpuset.cpus")
					if !ok {
						continue // gone: taken down by hand
					}
					st.Shields = append(st.Shields, ShieldUp{Cgroup: e.Path, CPUs: online.Difference(others), Others: others, TuneLayer: tuneLayer(l),
						Inside: root.IsHost() && insideCgroup(root, root.Path(e.Path))})
				}
			}
		}
	}
	if root.IsHost() && !slices.ContainsFunc(st.Shields, func(s ShieldUp) bool { return s.Inside }) {
		if dir := shieldAround(root); dir != "" {
			rel := strings.TrimPrefix(dir, "/")
			others, _ := r.list(rel + "/cpuset.cpus")
			pid, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), shieldPrefix))
			st.Shields = append(st.Shields, ShieldUp{Cgroup: rel, CPUs: online.Difference(others), Others: others, TuneLayer: TuneLayer{PID: pid}, Inside: true})
		}
	}
	if st.Error == "" && len(st.Tunes) == 0 && len(st.Shields) == 0 {
		return nil
	}
	return st
}

// Warnings says what a corepin command must tell the person who started
// it: a journal it cannot use, the tunes left by processes that ended,
// and the shield it runs inside. Text from the journal is made safe for a
// terminal.
func (s *JournalState) Warnings() []string {
	if s == nil {
		return nil
	}
	var out []string
	if s.Error != "" {
		out = append(out, "cannot use the journal of a tuned machine: "+s.Error)
	}
	if msg := staleText(s.Tunes); msg != "" {
		out = append(out, msg)
	}
	for _, sh := range s.Shields {
		if !sh.Inside {
			continue
		}
		way := "run corepin from the shell that made the shield, or take the shield down with `corepin system reset`"
		if sh.Running {
			way = "run corepin from the shell that started it, or after it ends: the shield comes down with it"
		}
		by := fmt.Sprintf("`%s` (pid %d, %s)", termsafe.Text(sh.Command), sh.PID, sh.Started.Local().Format("2006-01-02 15:04:05"))
		if sh.Command == "" {
			by = fmt.Sprintf("corepin pid %d (its cgroup %s says so; the journal %s does not)", sh.PID, sh.Cgroup, s.Journal)
		}
		out = append(out, fmt.Sprintf("inside corepin's shield: CPUs %s are shielded by %s, and this process may use only CPUs %s; %s", sh.CPUs, by, sh.Others, way))
	}
	return out
}

// tuneLayer describes a layer of the journal.
func tuneLayer(l Layer) TuneLayer {
	return TuneLayer{Command: l.Command, PID: l.Owner.PID, Started: l.Started, Changes: len(l.Entries), Running: l.Owner.Alive(fsroot.Host)}
}

// staleText is the warning for the layers whose process has ended, ""
// when there are none.
func staleText(tunes []TuneLayer) string {
	var who []string
	for _, l := range tunes {
		if !l.Running {
			who = append(who, fmt.Sprintf("`%s` (pid %d, %s, %d changes)", termsafe.Text(l.Command), l.PID, l.Started.Local().Format("2006-01-02 15:04:05"), l.Changes))
		}
	}
	if len(who) == 0 {
		return ""
	}
	return "the machine is still tuned from " + strings.Join(who, " and ") + "; `corepin system reset` restores it"
}

// JournalWarnings are the warnings of the live machine's journal at path
// (see JournalState.Warnings), for every corepin command's start.
func JournalWarnings(path string) []string {
	return ReadJournalState(fsroot.Host, path).Warnings()
}
