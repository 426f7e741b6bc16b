package system

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
)

// A shield must not pull the ground from under another corepin's
// measurement. Moved into the shield's cpuset, a corepin that is running
// loses the target it measures on: the work it starts next cannot be put
// there (its mask reads back as the shield's CPUs) and every remaining run
// is refused. So a shield leaves where they are the corepin processes that
// run now, with everything that belongs to their runs.

// corepinRuns are the corepin processes that run now, each with the
// processes of its run, and the run cgroups they made.
type corepinRuns struct {
	runs []*evidence.CorepinRun
	of   map[int]*evidence.CorepinRun   // every process left in place -> its run
	pids map[*evidence.CorepinRun][]int // a run's processes, sorted once found
	dirs []string                       // the live run cgroups' directories
}

// procEntry is what corepinRuns needs of one process.
type procEntry struct {
	ppid  int
	start uint64
	dead  bool // a zombie
}

// findCorepins finds the corepin processes that run now, by three marks
// that only a corepin makes, each naming the corepin by PID and start
// time: its guard's command line (corepin GuardArg PID START, every
// corepin command that changes state starts one), a layer of the journal
// j, and a run cgroup in the cpuset hierarchy mounted at mount whose name
// carries the mark of a corepin of this PID namespace
// (corepin-PID-sSTART-nsINODE-N). To each it adds its descendants (its run's tree: corepin is
// their subreaper), its guard, and the processes of its run cgroups and
// the cgroups nested in them.
func findCorepins(root fsroot.Root, mount string, j *Journal) *corepinRuns {
	c := &corepinRuns{of: map[int]*evidence.CorepinRun{}, pids: map[*evidence.CorepinRun][]int{}}
	procs := readProcs(root)
	owner := func(pid int, start uint64, how string) *evidence.CorepinRun {
		p, ok := procs[pid]
		if !ok || p.dead || p.start != start {
			return nil
		}
		if r := c.of[pid]; r != nil {
			if !slices.Contains(r.How, how) {
				r.How = append(r.How, how)
			}
			return r
		}
		r := &evidence.CorepinRun{PID: pid, Command: commandLine(root, pid), How: []string{how}}
		c.runs = append(c.runs, r)
		c.join(pid, r)
		return r
	}
	for pid := range procs {
		if guarded, start, ok := guardOf(root, pid); ok {
			if r := owner(guarded, start, "its guard"); r != nil {
				c.join(pid, r)
			}
		}
	}
	if j != nil {
		for _, l := range j.Layers {
			owner(l.Owner.PID, l.Owner.Start, "the journal")
		}
	}
	ns := cgroupfs.SelfMark().Namespace
	for _, d := range runCgroups(mount) {
		mark, _ := cgroupfs.ParseRunName(filepath.Base(d))
		if mark.Namespace != ns {
			continue // its PID is another namespace's
		}
		r := owner(mark.Owner.PID, mark.Owner.Start, "its run cgroup")
		if r == nil {
			continue
		}
		c.dirs = append(c.dirs, d)
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				ids, _ := cgroupfs.IDs(filepath.Join(p, "cgroup.procs"))
				for _, id := range ids {
					c.join(id, r)
				}
			}
			return nil
		})
	}
	// The runs' trees: whatever descends from a corepin or from a process
	// of its run cgroups.
	children := map[int][]int{}
	for pid, p := range procs {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	var walk func(pid int, r *evidence.CorepinRun)
	walk = func(pid int, r *evidence.CorepinRun) {
		for _, k := range children[pid] {
			if c.of[k] == nil {
				c.join(k, r)
				walk(k, r)
			}
		}
	}
	roots := map[int]*evidence.CorepinRun{}
	for pid, r := range c.of {
		roots[pid] = r
	}
	for pid, r := range roots {
		walk(pid, r)
	}
	for _, r := range c.runs {
		slices.Sort(c.pids[r])
		r.Processes = len(c.pids[r])
	}
	slices.SortFunc(c.runs, func(a, b *evidence.CorepinRun) int { return a.PID - b.PID })
	return c
}

// join adds a process to a run, unless it is already in one.
func (c *corepinRuns) join(pid int, r *evidence.CorepinRun) {
	if c.of[pid] != nil && c.of[pid] != r {
		return
	}
	if c.of[pid] == nil {
		c.of[pid] = r
	}
	if !slices.Contains(c.pids[r], pid) {
		c.pids[r] = append(c.pids[r], pid)
	}
}

// drop forgets a run: its processes are no longer left in place for it.
func (c *corepinRuns) drop(r *evidence.CorepinRun) {
	for _, pid := range c.pids[r] {
		if c.of[pid] == r {
			delete(c.of, pid)
		}
	}
	delete(c.pids, r)
	c.runs = slices.DeleteFunc(c.runs, func(x *evidence.CorepinRun) bool { return x == r })
	c.dirs = slices.DeleteFunc(c.dirs, func(d string) bool {
		mark, _ := cgroupfs.ParseRunName(filepath.Base(d))
		return mark.Owner.PID == r.PID
	})
}

// run returns the run a process belongs to, nil when none.
func (c *corepinRuns) run(pid int) *evidence.CorepinRun {
	if c == nil {
		return nil
	}
	return c.of[pid]
}

// holds says whether dir is a live run cgroup or lies inside one.
func (c *corepinRuns) holds(dir string) bool {
	if c == nil {
		return false
	}
	for _, d := range c.dirs {
		if dir == d || strings.HasPrefix(dir, d+"/") {
			return true
		}
	}
	return false
}

// readProcs reads every process's parent and start time under root.
func readProcs(root fsroot.Root) map[int]procEntry {
	out := map[int]procEntry{}
	pids, _ := procfs.PIDs(root)
	for _, pid := range pids {
		st, err := procfs.ReadTaskStat(root, pid)
		if err != nil {
			continue // it ended
		}
		out[pid] = procEntry{ppid: st.PPid, start: st.StartTime, dead: st.Dead()}
	}
	return out
}

// guardOf reads whether pid is a corepin guard, and whose: its command
// line is corepin GuardArg PID START.
func guardOf(root fsroot.Root, pid int) (guarded int, start uint64, ok bool) {
	data, err := root.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return 0, 0, false
	}
	args := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	if len(args) != 4 || args[1] != GuardArg {
		return 0, 0, false
	}
	guarded, err1 := strconv.Atoi(args[2])
	start, err2 := strconv.ParseUint(args[3], 10, 64)
	return guarded, start, err1 == nil && err2 == nil && guarded > 0
}

// commandLine is a process's command line, its arguments joined by
// spaces; its name in brackets when it has none.
func commandLine(root fsroot.Root, pid int) string {
	data, err := root.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(bytes.TrimRight(data, "\x00")) == 0 {
		comm, _ := root.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		return "[" + strings.TrimSpace(string(comm)) + "]"
	}
	return strings.ReplaceAll(string(bytes.TrimRight(data, "\x00")), "\x00", " ")
}

// runCgroups lists the directories of the hierarchy at mount named with
// corepin's mark, as launch names a run's cgroup, at any depth (a
// run cgroup is made below its corepin's own cgroup). What is inside one
// is not searched further: it is that run's.
func runCgroups(mount string) []string {
	var out []string
	if mount == "" {
		return nil
	}
	filepath.WalkDir(mount, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == mount {
			return nil
		}
		if _, ok := cgroupfs.ParseRunName(d.Name()); ok {
			out = append(out, p)
			return filepath.SkipDir
		}
		return nil
	})
	return out
}
