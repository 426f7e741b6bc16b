package system

import (
	"fmt"
	"io"
	"strings"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/termsafe"
)

// ShieldReport says what a shield did: which cgroup took the rest of the
// machine, how many tasks moved, which could not, and how busy those kept
// the target during the run.
//
// corepin shields the way cset shield does on both hierarchies: the rest of
// the machine goes to a complementary cpuset (the target's CPUs taken
// out), while corepin itself stays where it was, so that its own threads
// (the watcher, the sampler) still run on the other CPUs of the same
// process and the work it starts on the target inherits a cpuset that
// allows it. User threads that no cgroup move reaches (tasks in other
// cgroups) have their own CPU mask narrowed instead. Kernel threads are
// left alone, as cset shield does by default: moving them can change their
// masks for good (a workqueue rescuer follows its pool, a kernel before 6.2
// drops the offline CPUs of a mask it is given back), and corepin restores
// exactly or not at all. Their time on the target is in OutsideBusyPct.
//
// Other corepins that run now are left where they are, with everything
// of their runs (see CorepinRun): moved into the shield, a corepin could
// no longer put its work on its target, and the rest of its runs would
// be lost.
type ShieldReport struct {
	Hierarchy string     `json:"hierarchy"` // "cgroup v1 cpuset" or "cgroup v2"
	Cgroup    string     `json:"cgroup"`    // the complementary cgroup, relative to the root
	CPUs      cpuset.Set `json:"cpus"`      // the shielded target
	Others    cpuset.Set `json:"others"`    // where the rest of the machine runs
	Moved     int        `json:"moved"`     // tasks (v1) or processes (v2) moved
	Narrowed  int        `json:"narrowed"`  // threads whose own mask was narrowed
	// Unmovable are the threads still allowed on the target (per-CPU
	// kernel threads, tasks pinned to it).
	Unmovable []Task `json:"unmovable"`
	// Left are the corepins that ran when the shield went up, left in
	// place with their runs; their threads that may use the target are
	// among Unmovable.
	Left []CorepinRun `json:"left_in_place,omitempty"`
	// OutsideBusyPct is the CPU time the unmovable threads used during
	// the run, as a percentage of its length: an upper bound of the
	// target's time taken by tasks outside the run. Nil until the end.
	OutsideBusyPct *float64 `json:"outside_busy_pct"`
	DurationS      float64  `json:"duration_s"`
}

// Task is a thread the shield could not move off the target.
type Task struct {
	TID  int    `json:"tid"`
	Name string `json:"name"`
	CPUs string `json:"cpus"`
	Why  string `json:"why"`
}

// CorepinRun is a corepin that ran when a shield went up, and that the
// shield left where it was with its run: its descendants (the run's
// tree), its guard and the processes of its run cgroups.
type CorepinRun struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
	// How lists what showed it is a corepin that runs: "its guard", "the
	// journal", "its run cgroup".
	How []string `json:"found_by"`
	// Processes counts the processes left in place for it, itself
	// included.
	Processes int `json:"processes"`

	pids []int
}

// GuardArg is the first argument of corepin's guard (launch's): a small
// process that every corepin command that changes state starts, whose
// command line is "corepin GuardArg PID START", naming the corepin it
// guards by PID and start time. A shield knows a running corepin by it.
const GuardArg = "__corepin-guard"

// shield is a running shield's state, for its report at the end.
type shield struct {
	root    fsroot.Root // where the threads' /proc is read
	start   time.Time
	tracked map[int]uint64 // unmovable TID -> its CPU time (ns) at the start
}

// finish completes the report: the unmovable threads' CPU time during the
// run.
func (s *shield) finish(r *ShieldReport) {
	if s == nil || r == nil {
		return
	}
	elapsed := time.Since(s.start)
	var busy uint64
	for tid, before := range s.tracked {
		if now, ok := threadRunNs(s.root, tid); ok && now >= before {
			busy += now - before
		}
	}
	r.DurationS = elapsed.Seconds()
	if elapsed > 0 {
		pct := 100 * float64(busy) / float64(elapsed.Nanoseconds())
		r.OutsideBusyPct = &pct
	}
}

// WriteText writes the shield's report.
func (r *ShieldReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "shield (%s): CPUs %s kept for the work, the rest of the machine in %s on CPUs %s; %d moved, %d narrowed, %d could not leave",
		r.Hierarchy, r.CPUs, r.Cgroup, r.Others, r.Moved, r.Narrowed, len(r.Unmovable))
	if n := len(r.Left); n > 0 {
		fmt.Fprintf(w, ", %d corepin %s left in place", n, plural(n, "run", "runs"))
	}
	fmt.Fprintln(w)
	for _, c := range r.Left {
		fmt.Fprintf(w, "  left in place, a corepin that measures now: pid %d `%s` and its run (%d %s, found by %s)\n", c.PID, termsafe.Text(c.Command),
			c.Processes, plural(c.Processes, "process", "processes"), strings.Join(c.How, " and "))
	}
	for _, t := range r.Unmovable {
		fmt.Fprintf(w, "  still on the target: %d %s (CPUs %s): %s\n", t.TID, termsafe.Text(t.Name), t.CPUs, t.Why)
	}
	if r.OutsideBusyPct != nil {
		fmt.Fprintf(w, "  those used at most %.2f%% of the target over %.1f s\n", *r.OutsideBusyPct, r.DurationS)
	}
}

// plural picks the word for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
