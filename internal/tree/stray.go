package tree

import (
	"fmt"
	"strings"
)

// Stray is a dead corepin's run cgroup that a sweep found still holding
// processes: its name, how many processes were ended (or, by a sweep
// that only looks, left running), and what could not be done.
type Stray struct {
	Cgroup string `json:"cgroup"`
	Ended  int    `json:"ended"`
	Left   int    `json:"left,omitempty"`
	Err    string `json:"error,omitempty"`
}

// String says what the sweep did, for corepin's stderr.
func (s Stray) String() string {
	var b strings.Builder
	switch {
	case s.Left > 0:
		fmt.Fprintf(&b, "%s left by a corepin that was killed still %s in cgroup %s; a command that only reads leaves them: the next corepin run, exec, experiment or system tune or reset ends them",
			processes(s.Left), verb(s.Left, "runs", "run"), s.Cgroup)
	case s.Ended > 0:
		fmt.Fprintf(&b, "ended %s left by a corepin that was killed (cgroup %s)", processes(s.Ended), s.Cgroup)
	case s.Err != "":
		fmt.Fprintf(&b, "could not remove cgroup %s left by a corepin that was killed", s.Cgroup)
	default:
		fmt.Fprintf(&b, "removed cgroup %s left by a corepin that was killed", s.Cgroup)
	}
	if s.Err != "" {
		b.WriteString("; " + s.Err)
	}
	return b.String()
}

// verb is one or many's form of a verb.
func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// processes is "1 process", "3 processes".
func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}
