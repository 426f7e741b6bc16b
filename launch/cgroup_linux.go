package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/sched"
)

// A run cgroup holds every process of one run. Its cpuset confines them,
// however short-lived, to the target; its CPU account covers all of them,
// dead or alive; and killing it ends the whole tree. Two kernels' ways are
// supported:
//
//   - cgroup v2 where the cpuset controller is delegated to the cgroup
//     corepin runs in: one directory, entered at fork through
//     CLONE_INTO_CGROUP, accounted by cpu.stat and ended by cgroup.kill.
//   - cgroup v1 with a cpuset hierarchy: a directory in the cpuset
//     hierarchy and, where they are mounted, in cpuacct (the per-CPU
//     account) and freezer (to end the tree without a race against fork).
//     v1 has no way in at fork, so the thread that forks enters the
//     cgroups first, the command inherits them, and the thread goes back.
//
// Where the run's accepted step sets a nice value, the run also gets a
// weight (see weight.go): cpu.weight of its v2 directory where the cpu
// controller is delegated, or on v1 a directory of the cpu hierarchy with
// that cpu.shares, made only then (weigh) and entered as the others are.
type cgroup struct {
	version int    // 1 or 2
	name    string // the directory's name, the same in every hierarchy
	// dirs are the run's directories: v2 has one, keyed "", v1 one per
	// hierarchy, keyed "cpuset", "cpuacct", "freezer".
	dirs map[string]string
	// home is, on v1, the directory of each hierarchy the forking thread
	// came from, to go back to.
	home map[string]string
	fd   int // v2: the directory, for CLONE_INTO_CGROUP; -1 otherwise
	cpus cpuset.Set
	// cpuHome is, on v1, corepin's own directory of the cpu hierarchy,
	// where weigh makes the run's; noWeight says why the run cannot have a
	// weight, when it cannot.
	cpuHome  string
	noWeight string
}

// swept are the folders sweepStale has looked at, once per process.
var swept struct {
	sync.Mutex
	dirs map[string]bool
}

// sweepStale removes, once per process and folder, the run cgroups that a
// corepin killed with SIGKILL could not: marked for a corepin of this PID
// namespace that no longer runs (cgroupfs.Stale), and empty (rmdir
// refuses a cgroup with a task in it, so nothing that runs is touched).
func sweepStale(dir string) {
	swept.Lock()
	defer swept.Unlock()
	if swept.dirs[dir] {
		return
	}
	if swept.dirs == nil {
		swept.dirs = map[string]bool{}
	}
	swept.dirs[dir] = true
	for _, d := range cgroupfs.Stale(fsroot.Host, dir, cgroupfs.SelfMark().Namespace) {
		cgroupfs.RemoveTree(d, 0)
	}
}

// newCgroup makes a cgroup for one run confined to cpus, the best way the
// kernel and this user allow. It returns nil and the reason when there is
// none.
func newCgroup(root fsroot.Root, cpus cpuset.Set) (*cgroup, string) {
	mounts, err := cgroupfs.ReadMounts(root)
	if err != nil {
		return nil, err.Error()
	}
	own, err := cgroupfs.ReadProcCgroup(root, "self")
	if err != nil {
		return nil, err.Error()
	}
	name := cgroupfs.NewRunName()
	var why []string
	if m, ok := cgroupfs.V2(mounts); ok {
		cg, err := newCgroupV2(m, own[""], name, cpus)
		if err == nil {
			return cg, ""
		}
		why = append(why, "cgroup v2: "+err.Error())
	}
	cg, err := newCgroupV1(mounts, own, name, cpus)
	if err == nil {
		return cg, ""
	}
	why = append(why, "cgroup v1: "+err.Error())
	return nil, strings.Join(why, "; ")
}

// newCgroupV2 makes the run's cgroup below corepin's own where cpuset is
// delegated to it.
func newCgroupV2(m cgroupfs.Mount, own, name string, cpus cpuset.Set) (*cgroup, error) {
	parent := cgroupfs.HierarchyDir(m, own)
	if parent == "" {
		return nil, fmt.Errorf("corepin's cgroup %s is not under the mount %s", own, m.Dir)
	}
	ctl, err := fsroot.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	if err != nil {
		return nil, fmt.Errorf("reading the delegated controllers: %w", err)
	}
	if !slices.Contains(strings.Fields(string(ctl)), "cpuset") {
		return nil, fmt.Errorf("the cpuset controller is not delegated to %s", parent)
	}
	sweepStale(parent)
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making the run's cgroup: %w", err)
	}
	cg := &cgroup{version: 2, name: name, dirs: map[string]string{"": dir}, fd: -1}
	if !slices.Contains(strings.Fields(string(ctl)), "cpu") {
		cg.noWeight = "the cpu controller is not delegated to " + parent
	}
	if err := cg.confine(dir, "cpuset.cpus", "cpuset.cpus.effective", cpus); err != nil {
		cg.remove()
		return nil, err
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		cg.remove()
		return nil, fmt.Errorf("opening the run's cgroup: %w", err)
	}
	cg.fd = fd
	return cg, nil
}

// newCgroupV1 makes the run's cgroup in the v1 cpuset hierarchy and, where
// mounted, in cpuacct and freezer. A cpuacct bound together with the cpu
// controller is left out: a new cpu group gets no realtime runtime, and a
// realtime command could not enter it.
func newCgroupV1(mounts []cgroupfs.Mount, own map[string]string, name string, cpus cpuset.Set) (*cgroup, error) {
	cg := &cgroup{version: 1, name: name, dirs: map[string]string{}, home: map[string]string{}, fd: -1}
	for _, ctl := range []string{"cpuset", "cpuacct", "freezer"} {
		m, ok := cgroupfs.V1(mounts, ctl)
		if !ok {
			if ctl == "cpuset" {
				return nil, errors.New("no cpuset hierarchy is mounted")
			}
			continue
		}
		if ctl == "cpuacct" && m.Has("cpu") {
			continue
		}
		if ctl == "cpuset" && m.Has("cpu") {
			cg.noWeight = "the cpu controller is bound with cpuset, whose run directory a realtime step must enter"
		}
		home := cgroupfs.HierarchyDir(m, own[ctl])
		if home == "" {
			continue
		}
		sweepStale(home)
		dir := filepath.Join(home, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			cg.remove()
			return nil, fmt.Errorf("making the run's %s cgroup: %w", ctl, err)
		}
		cg.dirs[ctl], cg.home[ctl] = dir, home
		if ctl == "cpuset" {
			// A v1 cpuset starts empty; it needs its memory nodes before
			// any task may enter.
			mems, err := fsroot.ReadFile(filepath.Join(home, "cpuset.mems"))
			if err == nil {
				err = cgroupfs.Write(filepath.Join(dir, "cpuset.mems"), strings.TrimSpace(string(mems)))
			}
			if err == nil {
				err = cg.confine(dir, "cpuset.cpus", "cpuset.effective_cpus", cpus)
			}
			if err != nil {
				cg.remove()
				return nil, err
			}
		}
	}
	if cg.noWeight == "" {
		cg.cpuHome, cg.noWeight = cpuHierarchy(mounts, own)
	}
	return cg, nil
}

// cpuHierarchy finds corepin's own directory of the v1 cpu hierarchy, or
// says why there is none. Stale run directories left there are swept.
func cpuHierarchy(mounts []cgroupfs.Mount, own map[string]string) (home, why string) {
	m, ok := cgroupfs.V1(mounts, "cpu")
	if !ok {
		return "", "no cgroup v1 cpu hierarchy is mounted"
	}
	if home = cgroupfs.HierarchyDir(m, own["cpu"]); home == "" {
		return "", fmt.Sprintf("corepin's cpu cgroup %s is not under the mount %s", own["cpu"], m.Dir)
	}
	sweepStale(home)
	return home, ""
}

// newWeightCgroup is a run cgroup of the v1 cpu hierarchy alone, for a
// thread of corepin's own (v2 moves whole processes, not one thread).
func newWeightCgroup(root fsroot.Root) (*cgroup, error) {
	mounts, err := cgroupfs.ReadMounts(root)
	if err != nil {
		return nil, err
	}
	own, err := cgroupfs.ReadProcCgroup(root, "self")
	if err != nil {
		return nil, err
	}
	home, why := cpuHierarchy(mounts, own)
	if home == "" {
		return nil, errors.New(why)
	}
	name := cgroupfs.NewRunName()
	return &cgroup{version: 1, name: name, dirs: map[string]string{}, home: map[string]string{}, fd: -1, cpuHome: home}, nil
}

// weigh gives the run the weight of nice n and returns the weight the
// kernel reads back: on v2 the cpu.weight of the run's directory, which
// the command enters at fork; on v1 a new directory of the cpu hierarchy
// with that cpu.shares, which enterWeighted or moveWeighted then fills.
func (cg *cgroup) weigh(n int) (int, error) {
	if cg.noWeight != "" {
		return 0, errors.New(cg.noWeight)
	}
	shares := NiceWeight(n)
	if cg.version == 2 {
		dir := cg.dirs[""]
		got, err := cgroupfs.WriteReadInt(filepath.Join(dir, "cpu.weight"), weightV2(shares))
		if err != nil {
			return 0, err
		}
		return sharesOfV2(got), nil
	}
	dir := filepath.Join(cg.cpuHome, cg.name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return 0, fmt.Errorf("making the run's cpu cgroup: %w", err)
	}
	got, err := cgroupfs.WriteReadInt(filepath.Join(dir, "cpu.shares"), shares)
	if err != nil {
		unix.Rmdir(dir)
		return 0, err
	}
	cg.dirs["cpu"] = dir
	return got, nil
}

// enterWeighted moves the calling thread, locked to its goroutine, into
// the run's v1 cpu cgroup, and notes where to go back to.
func (cg *cgroup) enterWeighted() error {
	dir, ok := cg.dirs["cpu"]
	if cg.version != 1 || !ok {
		return nil
	}
	if err := cgroupfs.Write(filepath.Join(dir, "tasks"), self); err != nil {
		return fmt.Errorf("moving the starting thread into the run's cpu cgroup: %w", err)
	}
	cg.home["cpu"] = cg.cpuHome
	return nil
}

// moveWeighted moves process pid, all its threads, into the run's v1 cpu
// cgroup: for a command that chose its scheduling after the fork (through
// the launcher). A process that has exited gives ESRCH.
func (cg *cgroup) moveWeighted(pid int) error {
	dir, ok := cg.dirs["cpu"]
	if cg.version != 1 || !ok {
		return nil
	}
	if err := cgroupfs.Write(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
		return fmt.Errorf("moving process %d into the run's cpu cgroup: %w", pid, err)
	}
	return nil
}

// dropWeighted removes the run's v1 cpu cgroup when nothing could enter
// it.
func (cg *cgroup) dropWeighted() {
	if dir, ok := cg.dirs["cpu"]; ok && cg.version == 1 {
		unix.Rmdir(dir)
		delete(cg.dirs, "cpu")
	}
}

// confine writes the CPUs and reads them back: the cgroup must hold
// exactly the target.
func (cg *cgroup) confine(dir, file, effective string, cpus cpuset.Set) error {
	got, err := cgroupfs.Confine(dir, file, effective, cpus)
	if err != nil {
		return err
	}
	cg.cpus = got
	return nil
}

// Mechanism names the cgroup's kind for the report.
func (cg *cgroup) Mechanism() string {
	return fmt.Sprintf("cgroup-v%d", cg.version)
}

// Dirs lists the run's directories.
func (cg *cgroup) Dirs() []string {
	var out []string
	for _, d := range cg.dirs {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// enter moves the calling thread, which must be locked to its goroutine,
// into the run's v1 cgroups; a command it forks inherits them. On v2 the
// command enters at fork and enter does nothing.
//
// The thread names itself as "0", not by its TID: since Linux 5.19
// ("cgroup: Optimize single thread migration") a thread that moves itself
// skips the global threadgroup lock, whose write side waits for an RCU
// grace period — about 20 ms here, which was most of corepin exec's start.
func (cg *cgroup) enter() error {
	if cg.version != 1 {
		return nil
	}
	for ctl, dir := range cg.dirs {
		if ctl == "cpu" {
			continue // the weighted group, entered by enterWeighted alone
		}
		if err := cgroupfs.Write(filepath.Join(dir, "tasks"), self); err != nil {
			return fmt.Errorf("moving the starting thread into the run's %s cgroup: %w", ctl, err)
		}
	}
	return nil
}

// self is how a thread names itself in a v1 tasks file.
const self = "0"

// leave moves the calling thread back where it came from. Out of the
// run's cpuset it calls off, which may move it off the target, and only
// then leaves the run's cpu cgroup: the thread shares the command's weight
// there, and outside it, still on the target, it would wait behind the
// command for its turn.
func (cg *cgroup) leave(off func()) error {
	if cg.version != 1 {
		off()
		return nil
	}
	var first error
	back := func(ctl string) {
		home, ok := cg.home[ctl]
		if !ok {
			return
		}
		if err := cgroupfs.Write(filepath.Join(home, "tasks"), self); err != nil && first == nil {
			first = fmt.Errorf("moving the starting thread back to its %s cgroup: %w", ctl, err)
		}
	}
	back("cpuset")
	off()
	for ctl := range cg.home {
		if ctl != "cpuset" && ctl != "cpu" {
			back(ctl)
		}
	}
	back("cpu")
	return first
}

// procs lists the processes in the run's cgroup.
func (cg *cgroup) procs() []int {
	dir := cg.dirs[""]
	if cg.version == 1 {
		dir = cg.dirs["cpuset"]
	}
	return cgroupfs.Procs(dir)
}

// accounted lists the processes in the cgroup that holds the run's CPU
// account: cpuacct on v1 where it is mounted (a process can leave one
// hierarchy and stay in another), else the one that confines it.
func (cg *cgroup) accounted() []int {
	if dir := cg.dirs["cpuacct"]; cg.version == 1 && dir != "" {
		return cgroupfs.Procs(dir)
	}
	return cg.procs()
}

// holds reports whether pid is in the run's cgroup (or one nested in it)
// in the hierarchy of its CPU account, by its own /proc/PID/cgroup. A
// process it cannot read is taken as held: nothing says it left.
func (cg *cgroup) holds(root fsroot.Root, pid int) bool {
	data, err := root.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return true
	}
	paths := cgroupfs.ParseProcCgroup(data)
	ctl := ""
	if cg.version == 1 {
		ctl = "cpuset"
		if cg.dirs["cpuacct"] != "" {
			ctl = "cpuacct"
		}
	}
	path, ok := paths[ctl]
	return !ok || slices.Contains(strings.Split(path, "/"), cg.name)
}

// allProcs lists, once each, the processes in any of the run's
// directories: one that moved itself out of one hierarchy is still in
// the others.
func (cg *cgroup) allProcs() []int {
	var out []int
	// corepin is never a member of its run: its forking thread passes
	// through the run's v1 cgroups, and a signal to its PID is one to
	// corepin.
	seen := map[int]bool{os.Getpid(): true}
	for _, dir := range cg.Dirs() {
		for _, pid := range cgroupfs.Procs(dir) {
			if !seen[pid] {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	return out
}

// signal sends sig to every process in the cgroup and returns how many
// were sent it.
func (cg *cgroup) signal(sig unix.Signal) int {
	n := 0
	for _, pid := range cg.allProcs() {
		if unix.Kill(pid, sig) == nil {
			n++
		}
	}
	return n
}

// kill ends every process in the cgroup: cgroup.kill on v2; on v1 the
// cgroup is frozen first, where a freezer is mounted, so that nothing
// forks between the listing and the signal.
func (cg *cgroup) kill() {
	if cg.version == 2 {
		if cgroupfs.Kill(cg.dirs[""]) == nil {
			return
		}
		cg.signal(unix.SIGKILL) // a kernel before 5.14
		return
	}
	freezer := cg.dirs["freezer"]
	if freezer != "" && cgroupfs.Freeze(freezer) {
		if afterFreeze != nil {
			afterFreeze()
		}
		cg.signal(unix.SIGKILL)
		cgroupfs.Thaw(freezer)
		return
	}
	for range 100 { // without a freezer: until no fork outruns the kill
		if cg.signal(unix.SIGKILL) == 0 {
			return
		}
	}
}

// Usage is the cgroup's CPU time so far, over every process that was in
// it; ok is false where it has no account.
func (cg *cgroup) usage() (time.Duration, bool) {
	if cg.version == 2 {
		return cgroupfs.UsageV2(cg.dirs[""])
	}
	dir := cg.dirs["cpuacct"]
	if dir == "" {
		return 0, false
	}
	return cgroupfs.UsageV1(dir)
}

// usagePerCPU is the v1 cpuacct's CPU time per CPU; nil elsewhere.
func (cg *cgroup) usagePerCPU() map[int]time.Duration {
	dir := cg.dirs["cpuacct"]
	if cg.version != 1 || dir == "" {
		return nil
	}
	per, err := cgroupfs.UsagePerCPU(dir)
	if err != nil {
		return nil
	}
	return per
}

// swept says why the run's cgroup was ended from outside, "" when it was
// not: a sweep's note on it (cgroupfs.Swept), or the cgroup gone before
// corepin removed it. Nothing but a sweep removes another corepin's run
// cgroup, and the kernel lets it go only once its processes have ended.
func (cg *cgroup) swept() string {
	const why = "the run's cgroup %s was ended while the run went on, by another process: %s"
	for _, d := range cg.Dirs() {
		if note := cgroupfs.Swept(d); note != "" {
			return fmt.Sprintf(why, cg.name, note)
		}
	}
	if !cg.exists() {
		return fmt.Sprintf(why, cg.name, "it was removed, as a corepin's sweep removes the cgroups of a corepin it takes for dead once it has ended their processes (SIGKILL)")
	}
	return ""
}

// afterFreeze, when set (by the tests), runs between kill's freeze and its
// thaw: the window in which a corepin that dies leaves its tree frozen.
var afterFreeze func()

// remove deletes the run's directories, the cgroups the command made
// inside them first. A cgroup with a live task cannot be removed, so the
// caller ends the tree first; a task still exiting is given a moment.
func (cg *cgroup) remove() error {
	if cg.fd >= 0 {
		unix.Close(cg.fd)
		cg.fd = -1
	}
	var first error
	for ctl, dir := range cg.dirs {
		if err := cgroupfs.RemoveTree(dir, 2*time.Second); err != nil && first == nil {
			first = fmt.Errorf("removing the run's %s cgroup: %w", ctl, err)
		}
	}
	return first
}

// CPUWeightPlan says whether a run's nice value can be given a cpu
// cgroup's weight on the system under root, and how: for corepin caps.
// On the live system a v1 cpu cgroup is made, weighted and removed again
// (what a run would do); under another root only the files are read.
func CPUWeightPlan(root fsroot.Root) (ok bool, how string) {
	mounts, err := cgroupfs.ReadMounts(root)
	if err != nil {
		return false, err.Error()
	}
	own, err := cgroupfs.ReadProcCgroup(root, "self")
	if err != nil {
		return false, err.Error()
	}
	if m, ok := cgroupfs.V2(mounts); ok {
		if parent := cgroupfs.HierarchyDir(m, own[""]); parent != "" {
			if ctl, err := root.ReadFile(filepath.Join(parent, "cgroup.subtree_control")); err == nil {
				f := strings.Fields(string(ctl))
				if slices.Contains(f, "cpuset") && slices.Contains(f, "cpu") {
					return true, fmt.Sprintf("cpu.weight of the run's cgroup v2 below %s, whose cgroup.subtree_control delegates cpu", parent)
				}
			}
		}
	}
	if _, ok := cgroupfs.V1(mounts, "cpuset"); !ok {
		return false, "no cgroup v2 with cpu and cpuset delegated, and no cgroup v1 cpuset hierarchy for a run's cgroup"
	}
	cpu, ok := cgroupfs.V1(mounts, "cpu")
	if !ok {
		return false, "no cgroup v1 cpu hierarchy is mounted"
	}
	if cpu.Has("cpuset") {
		return false, "the cpu controller is bound with cpuset, whose run directory a realtime step must enter"
	}
	home := cgroupfs.HierarchyDir(cpu, own["cpu"])
	if home == "" {
		return false, fmt.Sprintf("corepin's cpu cgroup %s is not under the mount %s", own["cpu"], cpu.Dir)
	}
	plan := fmt.Sprintf("a cgroup v1 cpu cgroup below %s with cpu.shares of the nice value's weight (nice -20: %d)", home, NiceWeight(-20))
	if !root.IsHost() {
		return true, plan + "; not tried: " + root.String() + " is not this system"
	}
	cg := &cgroup{version: 1, name: cgroupfs.NewRunName(), dirs: map[string]string{}, home: map[string]string{}, fd: -1, cpuHome: home}
	w, err := cg.weigh(-20)
	if err != nil {
		return false, err.Error()
	}
	if err := cg.remove(); err != nil {
		return false, err.Error()
	}
	return true, fmt.Sprintf("%s; a probe read back %d", plan, w)
}

// Containment says how a run's process tree is held on the system under
// root, for corepin caps: in a run cgroup (MechanismCgroupV2 or
// MechanismCgroupV1), which on the live system is made on the CPUs this
// process may use and removed again, as a run makes it; or by its process
// group and corepin's subreaping (MechanismProcessGroup), with the reason
// there is no cgroup. Under another root only a run there can tell: the
// mechanism is "".
func Containment(root fsroot.Root) (mechanism, evidence string) {
	if !root.IsHost() {
		return "", "unknown: only making a cgroup on " + root.String() + "'s own system can tell"
	}
	cpus, err := sched.GetAffinity(0)
	if err != nil {
		return "", fmt.Sprintf("reading this process's CPUs: %v", err)
	}
	cg, why := newCgroup(root, cpus)
	if cg == nil {
		return MechanismProcessGroup, "no cgroup: " + why
	}
	dirs := strings.Join(cg.Dirs(), ", ")
	if err := cg.remove(); err != nil {
		return cg.Mechanism(), fmt.Sprintf("a run's cgroup %s was made, and removing it failed: %v", dirs, err)
	}
	return cg.Mechanism(), "a run's cgroup " + dirs + " was made and removed"
}

// WeighThread gives the calling thread, which must be locked to its
// goroutine (a session thread, as RunThread's work runs on), the weight of
// the nice value it reads back, as a run's tree gets it: where autogroup
// would keep the nice value to corepin's session, the thread moves alone
// into a cgroup v1 cpu cgroup of that weight. It returns the priority's
// scope, why there is no cpu cgroup when there is none, and back, which
// puts the thread where it was and removes the cgroup; a thread that back
// could not put back is still in the cgroup and must not be handed back.
func WeighThread(root fsroot.Root) (scope, note string, back func() error) {
	back = func() error { return nil }
	a, err := sched.GetAttr(0)
	if err != nil {
		return "", fmt.Sprintf("reading the thread's scheduling: %v", err), back
	}
	enabled, _ := Autogroup(root)
	weighted, scope := priorityScope(a, enabled)
	if !weighted {
		return scope, "", back
	}
	if a.Nice > 0 {
		// Measured on Linux 6.18: a Go thread at nice 10 that moved itself
		// into a cpu cgroup of weight 110 beside two busy processes ran
		// 54 ms in two minutes, not the 10% its weight is worth (a shell
		// loop doing the same got its 10%); it is left in its session.
		return scope, "a thread of corepin's own at a positive nice value stays in corepin's session (in a cpu cgroup of its weight it starved under load)", back
	}
	cg, err := newWeightCgroup(root)
	if err != nil {
		return scope, "no cpu cgroup: " + err.Error() + " (a cgroup v2 moves whole processes, not one thread)", back
	}
	w, err := cg.weigh(a.Nice)
	if err == nil {
		err = cg.enterWeighted()
	}
	if err != nil {
		cg.dropWeighted()
		return scope, "no cpu cgroup: " + err.Error(), back
	}
	return scopeWeight(w), "", func() error {
		if err := cg.leave(func() {}); err != nil {
			return err
		}
		return cg.remove()
	}
}
