package guard

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// msg is one line on the guard's pipe. The line is words: a verb,
// numbers as they are, strings Go-quoted, so that a path with spaces or
// newlines stays one word of one line. (JSON would do, but encoding/json
// builds its encoders on first use, 0.2 ms on a corepin exec's way and as
// much again in the guard, on the CPU both share.)
//
//	cgroup VERSION "NAME" "KEY" "DIR" ...
//	group PGID START
//	ungroup PGID
//	journal "ROOT" "JOURNAL"
//	results "DIR"
//	done
type msg struct {
	Cgroup  *cgroupMsg
	Group   *groupMsg
	Ungroup int
	Journal *tuneMsg
	Results string
	Done    bool
}

// cgroupMsg is a run cgroup: its directories, by controller as
// cgroupfs.Group.Dirs keys them.
type cgroupMsg struct {
	Version int
	Name    string
	Dirs    map[string]string
}

// groupMsg is a run's process group: its ID is its leader's PID, with
// the leader's start time.
type groupMsg struct {
	PGID  int
	Start uint64
}

// tuneMsg is the machine whose journal holds corepin's tune.
type tuneMsg struct {
	Root    string
	Journal string
}

// line is m as the guard reads it: a line for each part that is set.
func (m msg) line() []byte {
	var b []byte
	if c := m.Cgroup; c != nil {
		b = fmt.Appendf(b, "cgroup %d %q", c.Version, c.Name)
		keys := make([]string, 0, len(c.Dirs))
		for k := range c.Dirs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b = fmt.Appendf(b, " %q %q", k, c.Dirs[k])
		}
		b = append(b, '\n')
	}
	if g := m.Group; g != nil {
		b = fmt.Appendf(b, "group %d %d\n", g.PGID, g.Start)
	}
	if m.Ungroup != 0 {
		b = fmt.Appendf(b, "ungroup %d\n", m.Ungroup)
	}
	if j := m.Journal; j != nil {
		b = fmt.Appendf(b, "journal %q %q\n", j.Root, j.Journal)
	}
	if m.Results != "" {
		b = fmt.Appendf(b, "results %q\n", m.Results)
	}
	if m.Done {
		b = append(b, "done\n"...)
	}
	return b
}

// parseLine reads one line that line wrote.
func parseLine(s string) (msg, error) {
	unread := fmt.Errorf("a line it cannot read: %q", s)
	w, err := words(s)
	if err != nil || len(w) == 0 {
		return msg{}, unread
	}
	bad := fmt.Errorf("a %s line it cannot read: %q", w[0], s)
	n := func(i int) int {
		v, e := strconv.Atoi(w[i])
		if e != nil {
			err = bad
		}
		return v
	}
	var m msg
	switch {
	case w[0] == "cgroup" && len(w) >= 3 && len(w)%2 == 1:
		c := &cgroupMsg{Version: n(1), Name: w[2], Dirs: map[string]string{}}
		for i := 3; i < len(w); i += 2 {
			c.Dirs[w[i]] = w[i+1]
		}
		m.Cgroup = c
	case w[0] == "group" && len(w) == 3:
		start, e := strconv.ParseUint(w[2], 10, 64)
		if e != nil {
			err = bad
		}
		m.Group = &groupMsg{PGID: n(1), Start: start}
	case w[0] == "ungroup" && len(w) == 2:
		if m.Ungroup = n(1); m.Ungroup <= 0 {
			err = bad
		}
	case w[0] == "journal" && len(w) == 3:
		m.Journal = &tuneMsg{Root: w[1], Journal: w[2]}
	case w[0] == "results" && len(w) == 2 && w[1] != "":
		m.Results = w[1]
	case w[0] == "done" && len(w) == 1:
		m.Done = true
	case slices.Contains([]string{"cgroup", "group", "ungroup", "journal", "results", "done"}, w[0]):
		return msg{}, bad
	default:
		return msg{}, unread
	}
	if err != nil {
		return msg{}, err
	}
	return m, nil
}

// words splits a line into its words, one space apart, unquoting
// the quoted ones.
func words(s string) ([]string, error) {
	var words []string
	for s != "" {
		word := s
		if i := strings.IndexByte(s, ' '); i >= 0 {
			word = s[:i]
		}
		if strings.HasPrefix(s, `"`) {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, err
			}
			word = q
		}
		s = s[len(word):]
		if strings.HasPrefix(word, `"`) {
			word, _ = strconv.Unquote(word)
		}
		words = append(words, word)
		if s != "" {
			if s[0] != ' ' || len(s) == 1 || s[1] == ' ' {
				return nil, errors.New("words must be one space apart")
			}
			s = s[1:]
		}
	}
	return words, nil
}
