package cgroupfs

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// Group is one cgroup of corepin's: a directory of one name in each
// hierarchy it spans on cgroup v1, or its one directory on v2. Make
// makes one with its limits; Found names one that exists (a dead
// corepin's, which the guard or a sweep ends).
type Group struct {
	Version int
	Name    string
	// Dirs are its directories by controller: "" for v2's; on v1 the
	// hierarchy's controller ("cpuset", "cpuacct", "freezer", "cpu").
	Dirs map[string]string
	// CPUs are the CPUs its cpuset read back when it was confined.
	CPUs cpuset.Set
	kind Kind
	// parents are where each directory was made: where a thread that
	// entered it goes back to.
	parents map[string]string
	entered map[string]bool // the hierarchies the calling thread entered
	fd      int             // v2: the directory (O_PATH) for CLONE_INTO_CGROUP; -1 until FD
}

// Parent is where a group is made: a directory of each hierarchy it
// spans, by controller ("" for v2).
type Parent struct {
	Version int
	Dirs    map[string]string
}

// Limits are what a group holds its tasks to; a zero field asks for
// nothing.
type Limits struct {
	// CPUs are its cpuset's CPUs; the CPUs in force must read back the
	// same.
	CPUs cpuset.Set
	// Mems are a v1 cpuset's memory nodes; none copies the parent's (a
	// v1 cpuset takes no task before it has some). v2 inherits them.
	Mems string
	// Weight is the kernel's load weight of the group against its
	// siblings, as cpu.shares takes it (see SetWeight).
	Weight int
	// Quota is a CFS bandwidth limit.
	Quota *Quota
}

// Quota is a CFS bandwidth limit: US microseconds of CPU time in every
// PeriodUS, shared by all of the group's tasks; US < 0 is none.
type Quota struct{ US, PeriodUS int }

// Found is the group of that version and name whose directories are
// dirs: one made before, by this process or another.
func Found(version int, name string, dirs map[string]string) *Group {
	k, _, _ := ParseName(name)
	g := &Group{Version: version, Name: name, Dirs: map[string]string{}, kind: k, parents: map[string]string{}, entered: map[string]bool{}, fd: -1}
	for ctl, d := range dirs {
		g.Dirs[ctl] = d
	}
	return g
}

// Drop removes the group's directory of the hierarchy ctl, which must
// hold no task.
func (g *Group) Drop(ctl string) {
	if dir, ok := g.Dirs[ctl]; ok {
		unix.Rmdir(dir)
		delete(g.Dirs, ctl)
		delete(g.parents, ctl)
	}
}

// what names the group's directory of ctl in an error: "the run's",
// "the run's cpuset".
func (g *Group) what(ctl string) string {
	if ctl == "" {
		return g.kind.what()
	}
	return g.kind.what() + " " + ctl
}

// dir is the group's directory that holds the controller ctl's files:
// v2's one, or v1's of that hierarchy.
func (g *Group) dir(ctl string) (string, error) {
	if g.Version == 2 {
		return g.Dirs[""], nil
	}
	if d, ok := g.Dirs[ctl]; ok {
		return d, nil
	}
	return "", fmt.Errorf("%s cgroup is in no %s hierarchy", g.kind.what(), ctl)
}

// Limit holds the group to l.
func (g *Group) Limit(l Limits) error {
	if !l.CPUs.IsEmpty() {
		if err := g.confine(l.CPUs, l.Mems); err != nil {
			return err
		}
	}
	if l.Weight > 0 {
		if _, err := g.SetWeight(l.Weight); err != nil {
			return err
		}
	}
	if l.Quota != nil {
		return g.SetQuota(*l.Quota)
	}
	return nil
}

// confine gives the cpuset its memory nodes (v1) and its CPUs, and reads
// the CPUs in force back: they must be exactly cpus.
func (g *Group) confine(cpus cpuset.Set, mems string) error {
	dir, err := g.dir("cpuset")
	if err != nil {
		return err
	}
	effective := "cpuset.cpus.effective"
	if g.Version == 1 {
		effective = "cpuset.effective_cpus"
		if mems == "" {
			data, err := fsroot.ReadFile(filepath.Join(g.parents["cpuset"], "cpuset.mems"))
			if err != nil {
				return err
			}
			mems = strings.TrimSpace(string(data))
		}
	}
	if mems != "" {
		if err := Write(filepath.Join(dir, "cpuset.mems"), mems); err != nil {
			return err
		}
	}
	g.CPUs, err = confine(dir, "cpuset.cpus", effective, cpus, g.kind.what())
	return err
}

// SetWeight gives the group the kernel's load weight shares against its
// siblings and returns the weight the kernel reads back: v1's cpu.shares,
// or v2's cpu.weight on its own scale (see weightV2).
func (g *Group) SetWeight(shares int) (int, error) {
	dir, err := g.dir("cpu")
	if err != nil {
		return 0, err
	}
	if g.Version == 2 {
		got, err := WriteReadInt(filepath.Join(dir, "cpu.weight"), weightV2(shares))
		return sharesOfV2(got), err
	}
	return WriteReadInt(filepath.Join(dir, "cpu.shares"), shares)
}

// SetQuota sets the group's CFS bandwidth limit.
func (g *Group) SetQuota(q Quota) error {
	dir, err := g.dir("cpu")
	if err != nil {
		return err
	}
	if g.Version == 2 {
		us := "max"
		if q.US >= 0 {
			us = strconv.Itoa(q.US)
		}
		return writef(filepath.Join(dir, "cpu.max"), us+" "+strconv.Itoa(q.PeriodUS))
	}
	// The period first: a quota is checked against the period in force.
	if err := writef(filepath.Join(dir, "cpu.cfs_period_us"), strconv.Itoa(q.PeriodUS)); err != nil {
		return err
	}
	return writef(filepath.Join(dir, "cpu.cfs_quota_us"), strconv.Itoa(q.US))
}

// writef writes a cgroup file and says which, and what, in its error.
func writef(path, value string) error {
	if err := Write(path, value); err != nil {
		return fmt.Errorf("writing %q to %s: %w", value, path, err)
	}
	return nil
}

// self is how a thread names itself in a v1 tasks file. Since Linux 5.19
// ("cgroup: Optimize single thread migration") a thread that moves itself
// so skips the global threadgroup lock, whose write side waits for an
// RCU grace period: about 20 ms here, which was most of corepin exec's
// start.
const self = "0"

// EnterThread moves the calling thread, which must be locked to its
// goroutine, into the group's v1 directory of ctl; LeaveThread moves it
// back. A process it forks meanwhile is born there.
func (g *Group) EnterThread(ctl string) error {
	if err := Write(filepath.Join(g.Dirs[ctl], "tasks"), self); err != nil {
		return err
	}
	g.entered[ctl] = true
	return nil
}

// LeaveThread moves the calling thread back to where the group's
// directory of ctl was made, if EnterThread moved it in.
func (g *Group) LeaveThread(ctl string) error {
	if !g.entered[ctl] {
		return nil
	}
	if err := Write(filepath.Join(g.parents[ctl], "tasks"), self); err != nil {
		return err
	}
	delete(g.entered, ctl)
	return nil
}

// Entered lists the hierarchies the calling thread entered and has not
// left.
func (g *Group) Entered() []string { return slices.Sorted(maps.Keys(g.entered)) }

// AddProcess moves process pid, every thread of it, into the group's
// directory of ctl ("" on v2). A process that has exited gives ESRCH.
func (g *Group) AddProcess(ctl string, pid int) error {
	return Write(filepath.Join(g.Dirs[ctl], "cgroup.procs"), strconv.Itoa(pid))
}

// AddThread moves thread tid alone into the group's v1 directory of ctl.
func (g *Group) AddThread(ctl string, tid int) error {
	return Write(filepath.Join(g.Dirs[ctl], "tasks"), strconv.Itoa(tid))
}

// Members are the thread and process IDs the group's directory of ctl
// lists now (tasks or cgroup.threads, and cgroup.procs), not those of
// the cgroups nested in it.
func (g *Group) Members(ctl string) (map[int]bool, error) {
	threads := "tasks"
	if g.Version == 2 {
		threads = "cgroup.threads"
	}
	in := map[int]bool{}
	for _, f := range []string{threads, "cgroup.procs"} {
		ids, err := IDs(filepath.Join(g.Dirs[ctl], f))
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			in[id] = true
		}
	}
	return in, nil
}

// Procs lists the processes in the group's directory of ctl and in the
// cgroups nested in it.
func (g *Group) Procs(ctl string) []int { return Procs(g.Dirs[ctl]) }

// AllProcs lists, once each, the processes in any of the group's
// directories or the cgroups nested in them: one that moved itself out
// of one hierarchy is still in the others. The calling process is never
// among them: its thread passes through a run's v1 cgroups to fork the
// run, and a signal to its PID is one to itself.
func (g *Group) AllProcs() []int {
	var out []int
	seen := map[int]bool{os.Getpid(): true}
	for _, dir := range g.SortedDirs() {
		for _, pid := range Procs(dir) {
			if !seen[pid] {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	return out
}

// SortedDirs lists the group's directories.
func (g *Group) SortedDirs() []string {
	out := make([]string, 0, len(g.Dirs))
	for _, d := range g.Dirs {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// Holds says whether process pid is in the group (or a cgroup nested in
// it) in the hierarchy ctl ("" on v2), by its own /proc/PID/cgroup under
// root. A process it cannot read is taken as held: nothing says it left.
func (g *Group) Holds(root fsroot.Root, ctl string, pid int) bool {
	paths, err := ReadProcCgroup(root, strconv.Itoa(pid))
	if err != nil {
		return true
	}
	path, ok := paths[ctl]
	return !ok || slices.Contains(strings.Split(path, "/"), g.Name)
}

// Signal sends sig to every process of the group and returns how many
// were sent it.
func (g *Group) Signal(sig unix.Signal) int {
	n := 0
	for _, pid := range g.AllProcs() {
		if unix.Kill(pid, sig) == nil {
			n++
		}
	}
	return n
}

// Kill ends every process of the group: cgroup.kill on v2; on v1 the
// group is frozen first, where it has a freezer, so that nothing forks
// between the listing and the signal.
func (g *Group) Kill() {
	if g.Version == 2 {
		if Kill(g.Dirs[""]) == nil {
			return
		}
		g.Signal(unix.SIGKILL) // a kernel before 5.14
		return
	}
	if freezer := g.Dirs["freezer"]; freezer != "" && Freeze(freezer) {
		g.Signal(unix.SIGKILL)
		Thaw(freezer)
		return
	}
	for range 100 { // without a freezer: until no fork outruns the kill
		if g.Signal(unix.SIGKILL) == 0 {
			return
		}
	}
}

// Freeze stops every task of the group where it has a v1 freezer; it
// reports whether it did.
func (g *Group) Freeze() bool {
	freezer := g.Dirs["freezer"]
	return g.Version == 1 && freezer != "" && Freeze(freezer)
}

// Thaw lets the group's tasks and those of the cgroups nested in it run
// again, where it has a v1 freezer: a frozen task does not act on
// SIGKILL until it is thawed.
func (g *Group) Thaw() {
	if freezer := g.Dirs["freezer"]; g.Version == 1 && freezer != "" {
		Thaw(freezer)
	}
}

// Usage is the group's CPU time so far, over every process that was in
// it; ok is false where it has no account.
func (g *Group) Usage() (time.Duration, bool) {
	if g.Version == 2 {
		return UsageV2(g.Dirs[""])
	}
	dir := g.Dirs["cpuacct"]
	if dir == "" {
		return 0, false
	}
	return UsageV1(dir)
}

// UsagePerCPU is the group's CPU time per CPU, which only a v1 cpuacct
// keeps; nil elsewhere.
func (g *Group) UsagePerCPU() map[int]time.Duration {
	dir := g.Dirs["cpuacct"]
	if g.Version != 1 || dir == "" {
		return nil
	}
	per, err := UsagePerCPU(dir)
	if err != nil {
		return nil
	}
	return per
}

// Exists says whether any of the group's directories is still there.
func (g *Group) Exists() bool {
	for _, d := range g.Dirs {
		if _, err := os.Stat(d); err == nil {
			return true
		}
	}
	return false
}

// NoteSwept leaves a sweep's note on each of the group's directories
// where the kernel keeps it (see NoteSwept).
func (g *Group) NoteSwept(note string) {
	for _, d := range g.Dirs {
		NoteSwept(d, note)
	}
}

// Swept is the first note a sweep left on the group's directories; ""
// when there is none.
func (g *Group) Swept() string {
	for _, d := range g.SortedDirs() {
		if note := Swept(d); note != "" {
			return note
		}
	}
	return ""
}

// End ends a group whose corepin is gone: it thaws it (that corepin may
// have died between its freeze and its thaw), ends every process in it
// and in the cgroups nested in it, waits until they are gone, and
// removes it, nested cgroups first. It returns how many processes it
// found to end.
func (g *Group) End() (int, error) {
	g.Thaw()
	live := len(g.AllProcs())
	if live > 0 {
		g.Kill()
		for deadline := time.Now().Add(5 * time.Second); len(g.AllProcs()) > 0 && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			g.Signal(unix.SIGKILL) // what forked between the listing and the kill
		}
	}
	return live, g.Remove()
}

// Remove deletes the group's directories, the cgroups made inside them
// first. A cgroup with a live task cannot be removed, so the caller ends
// its tasks first; a task still exiting is given a moment.
func (g *Group) Remove() error {
	if g.fd >= 0 {
		unix.Close(g.fd)
		g.fd = -1
	}
	var first error
	for ctl, dir := range g.Dirs {
		if err := RemoveTree(dir, 2*time.Second); err != nil && first == nil {
			first = fmt.Errorf("removing %s %s cgroup: %w", g.kind.what(), ctl, err)
		}
	}
	return first
}
