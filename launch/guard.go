package launch

import (
	"fmt"
	"strings"

	"corepin.dev/corepin/system"
)

// GuardArg makes corepin the guard of another corepin (see guardMain): a
// small process that finishes the cleanup when the corepin that started
// it ends without saying it is done. Its command line names the guarded
// corepin, and a shield knows a running corepin by it: the name is
// system's.
const GuardArg = system.GuardArg

// Stray is a dead corepin's run cgroup that a sweep found still holding
// processes: its name, how many processes were ended, and what could not
// be done.
type Stray struct {
	Cgroup string `json:"cgroup"`
	Ended  int    `json:"ended"`
	Err    string `json:"error,omitempty"`
}

// String says what the sweep did, for corepin's stderr.
func (s Stray) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ended %s left by a corepin that was killed (cgroup %s)", processes(s.Ended), s.Cgroup)
	if s.Err != "" {
		b.WriteString("; " + s.Err)
	}
	return b.String()
}

// processes is "1 process", "3 processes".
func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}
