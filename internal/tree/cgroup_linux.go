package tree

import (
	"errors"
	"fmt"
	"strings"
	"sync"

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
	*cgroupfs.Group
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
// namespace that no longer runs (cgroupfs.OwnerGone), and empty (rmdir
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
func newCgroup(h *cgroupfs.Hierarchies, cpus cpuset.Set) (*cgroup, string) {
	name := cgroupfs.NewRunName()
	var why []string
	if m, ok := h.V2(); ok {
		cg, err := newCgroupV2(h, m, name, cpus)
		if err == nil {
			return cg, ""
		}
		why = append(why, "cgroup v2: "+err.Error())
	}
	cg, err := newCgroupV1(h, name, cpus)
	if err == nil {
		return cg, ""
	}
	why = append(why, "cgroup v1: "+err.Error())
	return nil, strings.Join(why, "; ")
}

// newCgroupV2 makes the run's cgroup below corepin's own where cpuset is
// delegated to it, and opens it for the command to be forked into.
func newCgroupV2(h *cgroupfs.Hierarchies, m cgroupfs.Mount, name string, cpus cpuset.Set) (*cgroup, error) {
	parent := h.OwnDir(m)
	if parent == "" {
		return nil, fmt.Errorf("corepin's cgroup %s is not under the mount %s", h.Own[""], m.Dir)
	}
	ok, err := h.Delegated(parent, "cpuset")
	if err != nil {
		return nil, fmt.Errorf("reading the delegated controllers: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("the cpuset controller is not delegated to %s", parent)
	}
	sweepStale(parent)
	g, err := cgroupfs.Make(cgroupfs.Parent{Version: 2, Dirs: map[string]string{"": parent}}, name, cgroupfs.Limits{CPUs: cpus})
	if err != nil {
		return nil, err
	}
	if _, err := g.FD(); err != nil {
		g.Remove()
		return nil, err
	}
	cg := &cgroup{Group: g}
	if ok, _ := h.Delegated(parent, "cpu"); !ok {
		cg.noWeight = "the cpu controller is not delegated to " + parent
	}
	return cg, nil
}

// newCgroupV1 makes the run's cgroup in the v1 cpuset hierarchy and, where
// mounted, in cpuacct and freezer. A cpuacct bound together with the cpu
// controller is left out: a new cpu group gets no realtime runtime, and a
// realtime command could not enter it.
func newCgroupV1(h *cgroupfs.Hierarchies, name string, cpus cpuset.Set) (*cgroup, error) {
	parent := cgroupfs.Parent{Version: 1, Dirs: map[string]string{}}
	var noWeight string
	for _, ctl := range []string{"cpuset", "cpuacct", "freezer"} {
		m, ok := h.V1(ctl)
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
			noWeight = "the cpu controller is bound with cpuset, whose run directory a realtime step must enter"
		}
		home := h.OwnDir(m)
		if home == "" {
			continue
		}
		sweepStale(home)
		parent.Dirs[ctl] = home
	}
	var limits cgroupfs.Limits
	if _, ok := parent.Dirs["cpuset"]; ok {
		limits.CPUs = cpus
	}
	g, err := cgroupfs.Make(parent, name, limits)
	if err != nil {
		return nil, err
	}
	cg := &cgroup{Group: g, noWeight: noWeight}
	if cg.noWeight == "" {
		cg.cpuHome, cg.noWeight = cpuHierarchy(h)
	}
	return cg, nil
}

// cpuHierarchy finds corepin's own directory of the v1 cpu hierarchy, or
// says why there is none. Stale run directories left there are swept.
func cpuHierarchy(h *cgroupfs.Hierarchies) (home, why string) {
	m, ok := h.V1("cpu")
	if !ok {
		return "", "no cgroup v1 cpu hierarchy is mounted"
	}
	if home = h.OwnDir(m); home == "" {
		return "", fmt.Sprintf("corepin's cpu cgroup %s is not under the mount %s", h.Own["cpu"], m.Dir)
	}
	sweepStale(home)
	return home, ""
}

// newWeightCgroup is a run cgroup of the v1 cpu hierarchy alone, for a
// thread of corepin's own (v2 moves whole processes, not one thread).
func newWeightCgroup(root fsroot.Root) (*cgroup, error) {
	h, err := cgroupfs.Find(root)
	if err != nil {
		return nil, err
	}
	home, why := cpuHierarchy(h)
	if home == "" {
		return nil, errors.New(why)
	}
	return &cgroup{Group: cgroupfs.Found(1, cgroupfs.NewRunName(), nil), cpuHome: home}, nil
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
	if cg.Version == 2 {
		return cg.SetWeight(shares)
	}
	if err := cg.Grow("cpu", cg.cpuHome, cgroupfs.Limits{}); err != nil {
		return 0, err
	}
	got, err := cg.SetWeight(shares)
	if err != nil {
		cg.Drop("cpu")
		return 0, err
	}
	return got, nil
}

// enterWeighted moves the calling thread, locked to its goroutine, into
// the run's v1 cpu cgroup.
func (cg *cgroup) enterWeighted() error {
	if _, ok := cg.Dirs["cpu"]; cg.Version != 1 || !ok {
		return nil
	}
	if err := cg.EnterThread("cpu"); err != nil {
		return fmt.Errorf("moving the starting thread into the run's cpu cgroup: %w", err)
	}
	return nil
}

// moveWeighted moves process pid, all its threads, into the run's v1 cpu
// cgroup: for a command that chose its scheduling after the fork (through
// the launcher). A process that has exited gives ESRCH.
func (cg *cgroup) moveWeighted(pid int) error {
	if _, ok := cg.Dirs["cpu"]; cg.Version != 1 || !ok {
		return nil
	}
	if err := cg.AddProcess("cpu", pid); err != nil {
		return fmt.Errorf("moving process %d into the run's cpu cgroup: %w", pid, err)
	}
	return nil
}

// dropWeighted removes the run's v1 cpu cgroup when nothing could enter
// it.
func (cg *cgroup) dropWeighted() {
	if cg.Version == 1 {
		cg.Drop("cpu")
	}
}

// Mechanism names the cgroup's kind for the report.
func (cg *cgroup) Mechanism() string {
	return fmt.Sprintf("cgroup-v%d", cg.Version)
}

// enter moves the calling thread, which must be locked to its goroutine,
// into the run's v1 cgroups; a command it forks inherits them. On v2 the
// command enters at fork and enter does nothing.
func (cg *cgroup) enter() error {
	if cg.Version != 1 {
		return nil
	}
	for ctl := range cg.Dirs {
		if ctl == "cpu" {
			continue // the weighted group, entered by enterWeighted alone
		}
		if err := cg.EnterThread(ctl); err != nil {
			return fmt.Errorf("moving the starting thread into the run's %s cgroup: %w", ctl, err)
		}
	}
	return nil
}

// leave moves the calling thread back where it came from. Out of the
// run's cpuset it calls off, which may move it off the target, and only
// then leaves the run's cpu cgroup: the thread shares the command's weight
// there, and outside it, still on the target, it would wait behind the
// command for its turn.
func (cg *cgroup) leave(off func()) error {
	if cg.Version != 1 {
		off()
		return nil
	}
	var first error
	back := func(ctl string) {
		if err := cg.LeaveThread(ctl); err != nil && first == nil {
			first = fmt.Errorf("moving the starting thread back to its %s cgroup: %w", ctl, err)
		}
	}
	back("cpuset")
	off()
	for _, ctl := range cg.Entered() {
		if ctl != "cpu" {
			back(ctl)
		}
	}
	back("cpu")
	return first
}

// procs lists the processes in the run's cgroup.
func (cg *cgroup) procs() []int {
	if cg.Version == 1 {
		return cg.Procs("cpuset")
	}
	return cg.Procs("")
}

// accounted lists the processes in the cgroup that holds the run's CPU
// account: cpuacct on v1 where it is mounted (a process can leave one
// hierarchy and stay in another), else the one that confines it.
func (cg *cgroup) accounted() []int {
	if _, ok := cg.Dirs["cpuacct"]; cg.Version == 1 && ok {
		return cg.Procs("cpuacct")
	}
	return cg.procs()
}

// holds reports whether pid is in the run's cgroup (or one nested in it)
// in the hierarchy of its CPU account, by its own /proc/PID/cgroup. A
// process it cannot read is taken as held: nothing says it left.
func (cg *cgroup) holds(root fsroot.Root, pid int) bool {
	ctl := ""
	if cg.Version == 1 {
		ctl = "cpuset"
		if cg.Dirs["cpuacct"] != "" {
			ctl = "cpuacct"
		}
	}
	return cg.Holds(root, ctl, pid)
}

// swept says why the run's cgroup was ended from outside, "" when it was
// not: a sweep's note on it (cgroupfs.Swept), or the cgroup gone before
// corepin removed it. Nothing but a sweep removes another corepin's run
// cgroup, and the kernel lets it go only once its processes have ended.
func (cg *cgroup) swept() string {
	const why = "the run's cgroup %s was ended while the run went on, by another process: %s"
	if note := cg.Swept(); note != "" {
		return fmt.Sprintf(why, cg.Name, note)
	}
	if !cg.Exists() {
		return fmt.Sprintf(why, cg.Name, "it was removed, as a corepin's sweep removes the cgroups of a corepin it takes for dead once it has ended their processes (SIGKILL)")
	}
	return ""
}

// CPUWeightPlan says whether a run's nice value can be given a cpu
// cgroup's weight on the system under root, and how: for corepin caps.
// On the live system a v1 cpu cgroup is made, weighted and removed again
// (what a run would do); under another root only the files are read.
func CPUWeightPlan(root fsroot.Root) (ok bool, how string) {
	h, err := cgroupfs.Find(root)
	if err != nil {
		return false, err.Error()
	}
	if m, ok := h.V2(); ok {
		if parent := h.OwnDir(m); parent != "" {
			if ok, _ := h.Delegated(parent, "cpuset", "cpu"); ok {
				return true, fmt.Sprintf("cpu.weight of the run's cgroup v2 below %s, whose cgroup.subtree_control delegates cpu", parent)
			}
		}
	}
	if _, ok := h.V1("cpuset"); !ok {
		return false, "no cgroup v2 with cpu and cpuset delegated, and no cgroup v1 cpuset hierarchy for a run's cgroup"
	}
	cpu, ok := h.V1("cpu")
	if !ok {
		return false, "no cgroup v1 cpu hierarchy is mounted"
	}
	if cpu.Has("cpuset") {
		return false, "the cpu controller is bound with cpuset, whose run directory a realtime step must enter"
	}
	home := h.OwnDir(cpu)
	if home == "" {
		return false, fmt.Sprintf("corepin's cpu cgroup %s is not under the mount %s", h.Own["cpu"], cpu.Dir)
	}
	plan := fmt.Sprintf("a cgroup v1 cpu cgroup below %s with cpu.shares of the nice value's weight (nice -20: %d)", home, NiceWeight(-20))
	if !root.IsHost() {
		return true, plan + "; not tried: " + root.String() + " is not this system"
	}
	cg := &cgroup{Group: cgroupfs.Found(1, cgroupfs.NewRunName(), nil), cpuHome: home}
	w, err := cg.weigh(-20)
	if err != nil {
		return false, err.Error()
	}
	if err := cg.Remove(); err != nil {
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
	h, err := cgroupfs.Find(root)
	if err != nil {
		return MechanismProcessGroup, "no cgroup: " + err.Error()
	}
	cg, why := newCgroup(h, cpus)
	if cg == nil {
		return MechanismProcessGroup, "no cgroup: " + why
	}
	dirs := strings.Join(cg.SortedDirs(), ", ")
	if err := cg.Remove(); err != nil {
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
		return cg.Remove()
	}
}
