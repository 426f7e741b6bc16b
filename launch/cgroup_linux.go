package launch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
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

// cgroupSeq makes the names of one process's cgroups unique.
var cgroupSeq atomic.Int64

// mount is one cgroup hierarchy from mountinfo.
type mount struct {
	dir         string   // where it is mounted
	root        string   // the part of the hierarchy seen there
	version     int      // 1 or 2
	controllers []string // v1: the controllers bound to it
}

// readMounts lists the cgroup hierarchies of /proc/self/mountinfo under
// root.
func readMounts(root fsroot.Root) ([]mount, error) {
	data, err := root.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("reading the cgroup mounts: %w", err)
	}
	return parseMountinfo(data), nil
}

// parseMountinfo picks the cgroup and cgroup2 lines of a mountinfo file
// (proc(5)): ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS…] - TYPE
// SOURCE SUPEROPTIONS.
func parseMountinfo(data []byte) []mount {
	var out []mount
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		sep := slices.Index(f, "-")
		if sep < 5 || len(f) < sep+4 {
			continue
		}
		m := mount{root: unescapeMount(f[3]), dir: unescapeMount(f[4])}
		switch f[sep+1] {
		case "cgroup2":
			m.version = 2
		case "cgroup":
			m.version = 1
			for _, o := range strings.Split(f[sep+3], ",") {
				switch o {
				case "rw", "ro", "relatime", "noatime", "nosuid", "nodev", "noexec", "clone_children", "noprefix", "xattr":
				default:
					if !strings.Contains(o, "=") {
						m.controllers = append(m.controllers, o)
					}
				}
			}
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownCgroups reads /proc/self/cgroup: for each v1 controller (and "" for
// v2) the path of corepin's cgroup in that hierarchy.
func ownCgroups(root fsroot.Root) (map[string]string, error) {
	data, err := root.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("reading corepin's cgroups: %w", err)
	}
	return parseProcCgroup(data), nil
}

// parseProcCgroup parses lines of HIERARCHY-ID:CONTROLLERS:PATH.
func parseProcCgroup(data []byte) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[1] == "" {
			out[""] = f[2]
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			out[c] = f[2]
		}
	}
	return out
}

// hierarchyDir is the directory of path (from /proc/self/cgroup) in the
// mounted hierarchy m, or "" when the mount does not show it.
func hierarchyDir(m mount, path string) string {
	rel, err := filepath.Rel(m.root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.Join(m.dir, rel)
}

// swept are the folders sweepStale has looked at, once per process.
var swept struct {
	sync.Mutex
	dirs map[string]bool
}

// sweepStale removes, once per process and folder, the run cgroups that a
// corepin killed with SIGKILL could not: named corepin-PID-N for a PID
// that no longer runs, and empty (rmdir refuses a cgroup with a task in
// it, so nothing that runs is touched). A PID that runs again, whoever's
// it is now, keeps its folder.
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
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if pid, ok := cgroupOwner(e.Name()); ok && e.IsDir() && ownerGone(fsroot.Host, filepath.Join(dir, e.Name()), pid) {
			removeTree(filepath.Join(dir, e.Name()), 0)
		}
	}
}

// cgroupOwner is the PID in a run cgroup's name, corepin-PID-N.
func cgroupOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "corepin-")
	if !ok {
		return 0, false
	}
	p, n, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err1 := strconv.Atoi(p)
	_, err2 := strconv.Atoi(n)
	return pid, err1 == nil && err2 == nil && pid > 0
}

// newCgroup makes a cgroup for one run confined to cpus, the best way the
// kernel and this user allow. It returns nil and the reason when there is
// none.
func newCgroup(root fsroot.Root, cpus cpuset.Set) (*cgroup, string) {
	mounts, err := readMounts(root)
	if err != nil {
		return nil, err.Error()
	}
	own, err := ownCgroups(root)
	if err != nil {
		return nil, err.Error()
	}
	name := fmt.Sprintf("corepin-%d-%d", os.Getpid(), cgroupSeq.Add(1))
	var why []string
	for _, m := range mounts {
		if m.version != 2 {
			continue
		}
		cg, err := newCgroupV2(m, own[""], name, cpus)
		if err == nil {
			return cg, ""
		}
		why = append(why, "cgroup v2: "+err.Error())
		break
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
func newCgroupV2(m mount, own, name string, cpus cpuset.Set) (*cgroup, error) {
	parent := hierarchyDir(m, own)
	if parent == "" {
		return nil, fmt.Errorf("corepin's cgroup %s is not under the mount %s", own, m.dir)
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
func newCgroupV1(mounts []mount, own map[string]string, name string, cpus cpuset.Set) (*cgroup, error) {
	cg := &cgroup{version: 1, name: name, dirs: map[string]string{}, home: map[string]string{}, fd: -1}
	for _, ctl := range []string{"cpuset", "cpuacct", "freezer"} {
		i := slices.IndexFunc(mounts, func(m mount) bool { return m.version == 1 && slices.Contains(m.controllers, ctl) })
		if i < 0 {
			if ctl == "cpuset" {
				return nil, errors.New("no cpuset hierarchy is mounted")
			}
			continue
		}
		m := mounts[i]
		if ctl == "cpuacct" && slices.Contains(m.controllers, "cpu") {
			continue
		}
		if ctl == "cpuset" && slices.Contains(m.controllers, "cpu") {
			cg.noWeight = "the cpu controller is bound with cpuset, whose run directory a realtime step must enter"
		}
		home := hierarchyDir(m, own[ctl])
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
				err = writeFile(filepath.Join(dir, "cpuset.mems"), strings.TrimSpace(string(mems)))
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
func cpuHierarchy(mounts []mount, own map[string]string) (home, why string) {
	i := slices.IndexFunc(mounts, func(m mount) bool { return m.version == 1 && slices.Contains(m.controllers, "cpu") })
	if i < 0 {
		return "", "no cgroup v1 cpu hierarchy is mounted"
	}
	if home = hierarchyDir(mounts[i], own["cpu"]); home == "" {
		return "", fmt.Sprintf("corepin's cpu cgroup %s is not under the mount %s", own["cpu"], mounts[i].dir)
	}
	sweepStale(home)
	return home, ""
}

// newWeightCgroup is a run cgroup of the v1 cpu hierarchy alone, for a
// thread of corepin's own (v2 moves whole processes, not one thread).
func newWeightCgroup(root fsroot.Root) (*cgroup, error) {
	mounts, err := readMounts(root)
	if err != nil {
		return nil, err
	}
	own, err := ownCgroups(root)
	if err != nil {
		return nil, err
	}
	home, why := cpuHierarchy(mounts, own)
	if home == "" {
		return nil, errors.New(why)
	}
	name := fmt.Sprintf("corepin-%d-%d", os.Getpid(), cgroupSeq.Add(1))
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
		got, err := writeReadInt(filepath.Join(dir, "cpu.weight"), weightV2(shares))
		if err != nil {
			return 0, err
		}
		return sharesOfV2(got), nil
	}
	dir := filepath.Join(cg.cpuHome, cg.name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return 0, fmt.Errorf("making the run's cpu cgroup: %w", err)
	}
	got, err := writeReadInt(filepath.Join(dir, "cpu.shares"), shares)
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
	if err := writeFile(filepath.Join(dir, "tasks"), self); err != nil {
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
	if err := writeFile(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
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

// writeReadInt writes v to a kernel file and reads back what the kernel
// kept.
func writeReadInt(path string, v int) (int, error) {
	if err := writeFile(path, strconv.Itoa(v)); err != nil {
		return 0, fmt.Errorf("setting %s to %d: %w", path, v, err)
	}
	data, err := fsroot.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading back %s: %w", path, err)
	}
	got, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0, fmt.Errorf("reading back %s: %w", path, err)
	}
	return got, nil
}

// confine writes the CPUs and reads them back: the cgroup must hold
// exactly the target.
func (cg *cgroup) confine(dir, file, effective string, cpus cpuset.Set) error {
	if err := writeFile(filepath.Join(dir, file), cpus.String()); err != nil {
		return fmt.Errorf("confining the run's cgroup to %s: %w", cpus, err)
	}
	data, err := fsroot.ReadFile(filepath.Join(dir, effective))
	if err != nil {
		return fmt.Errorf("reading back the run's cgroup CPUs: %w", err)
	}
	got, err := cpuset.Parse(strings.TrimSpace(string(data)))
	if err != nil {
		return fmt.Errorf("reading back the run's cgroup CPUs: %w", err)
	}
	if !got.Equal(cpus) {
		return fmt.Errorf("the run's cgroup reads back CPUs %s, not %s", got, cpus)
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
		if err := writeFile(filepath.Join(dir, "tasks"), self); err != nil {
			return fmt.Errorf("moving the starting thread into the run's %s cgroup: %w", ctl, err)
		}
	}
	return nil
}

// self is how a thread names itself in a v1 tasks file.
const self = "0"

// leave moves the calling thread back where it came from.
func (cg *cgroup) leave() error {
	if cg.version != 1 {
		return nil
	}
	var first error
	for ctl, home := range cg.home {
		if err := writeFile(filepath.Join(home, "tasks"), self); err != nil && first == nil {
			first = fmt.Errorf("moving the starting thread back to its %s cgroup: %w", ctl, err)
		}
	}
	return first
}

// procs lists the processes in the run's cgroup.
func (cg *cgroup) procs() []int {
	dir := cg.dirs[""]
	if cg.version == 1 {
		dir = cg.dirs["cpuset"]
	}
	return readProcs(dir)
}

// accounted lists the processes in the cgroup that holds the run's CPU
// account: cpuacct on v1 where it is mounted (a process can leave one
// hierarchy and stay in another), else the one that confines it.
func (cg *cgroup) accounted() []int {
	if dir := cg.dirs["cpuacct"]; cg.version == 1 && dir != "" {
		return readProcs(dir)
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
	paths := parseProcCgroup(data)
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

// readProcs reads the cgroup.procs of a cgroup directory and of every
// cgroup nested in it: a command may make cgroups of its own inside the
// run's and move its processes there, and they are still the run's.
func readProcs(dir string) []int {
	var pids []int
	data, err := fsroot.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	for _, sub := range nested(dir) {
		pids = append(pids, readProcs(sub)...)
	}
	return pids
}

// nested lists the cgroups directly inside dir.
func nested(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// allProcs lists, once each, the processes in any of the run's
// directories: one that moved itself out of one hierarchy is still in
// the others.
func (cg *cgroup) allProcs() []int {
	var out []int
	seen := map[int]bool{}
	for _, dir := range cg.Dirs() {
		for _, pid := range readProcs(dir) {
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
		if writeFile(filepath.Join(cg.dirs[""], "cgroup.kill"), "1") == nil {
			return
		}
		cg.signal(unix.SIGKILL) // a kernel before 5.14
		return
	}
	freezer := cg.dirs["freezer"]
	if freezer != "" && cg.freeze(freezer) {
		if afterFreeze != nil {
			afterFreeze()
		}
		cg.signal(unix.SIGKILL)
		thaw(freezer)
		return
	}
	for range 100 { // without a freezer: until no fork outruns the kill
		if cg.signal(unix.SIGKILL) == 0 {
			return
		}
	}
}

// freeze freezes a v1 freezer cgroup and waits, a little, until it is.
func (cg *cgroup) freeze(dir string) bool {
	state := filepath.Join(dir, "freezer.state")
	if writeFile(state, "FROZEN") != nil {
		return false
	}
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if data, err := fsroot.ReadFile(state); err == nil && strings.TrimSpace(string(data)) == "FROZEN" {
			return true
		}
	}
	return true // signals still reach the tasks that did freeze
}

// Usage is the cgroup's CPU time so far, over every process that was in
// it; ok is false where it has no account.
func (cg *cgroup) usage() (time.Duration, bool) {
	if cg.version == 2 {
		data, err := fsroot.ReadFile(filepath.Join(cg.dirs[""], "cpu.stat"))
		if err != nil {
			return 0, false
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
				us, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return time.Duration(us) * time.Microsecond, err == nil
			}
		}
		return 0, false
	}
	dir := cg.dirs["cpuacct"]
	if dir == "" {
		return 0, false
	}
	data, err := fsroot.ReadFile(filepath.Join(dir, "cpuacct.usage"))
	if err != nil {
		return 0, false
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return time.Duration(ns), err == nil
}

// usagePerCPU is the v1 cpuacct's CPU time per CPU; nil elsewhere.
func (cg *cgroup) usagePerCPU() map[int]time.Duration {
	dir := cg.dirs["cpuacct"]
	if cg.version != 1 || dir == "" {
		return nil
	}
	data, err := fsroot.ReadFile(filepath.Join(dir, "cpuacct.usage_percpu"))
	if err != nil {
		return nil
	}
	per, err := parseUsagePerCPU(data)
	if err != nil {
		return nil
	}
	return per
}

// parseUsagePerCPU parses cpuacct.usage_percpu: nanoseconds, one number
// per possible CPU in order.
func parseUsagePerCPU(data []byte) (map[int]time.Duration, error) {
	out := map[int]time.Duration{}
	for cpu, f := range strings.Fields(string(data)) {
		ns, err := strconv.ParseInt(f, 10, 64)
		if err != nil || ns < 0 {
			return nil, fmt.Errorf("cpuacct.usage_percpu: %q is not a count of nanoseconds", f)
		}
		out[cpu] = time.Duration(ns)
	}
	return out, nil
}

// afterFreeze, when set (by the tests), runs between kill's freeze and its
// thaw: the window in which a corepin that dies leaves its tree frozen.
var afterFreeze func()

// thaw thaws a v1 freezer cgroup and every cgroup nested in it, which
// the command may have frozen itself: a frozen task does not act on
// SIGKILL until it is thawed.
func thaw(dir string) {
	writeFile(filepath.Join(dir, "freezer.state"), "THAWED")
	for _, sub := range nested(dir) {
		thaw(sub)
	}
}

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
		if err := removeTree(dir, 2*time.Second); err != nil && first == nil {
			first = fmt.Errorf("removing the run's %s cgroup: %w", ctl, err)
		}
	}
	return first
}

// removeTree removes a cgroup directory and those nested in it, deepest
// first; one still busy with an exiting task is tried again for up to
// wait. A directory already gone is no error.
func removeTree(dir string, wait time.Duration) error {
	var first error
	for _, sub := range nested(dir) {
		if err := removeTree(sub, wait); err != nil && first == nil {
			first = err
		}
	}
	var err error
	for deadline := time.Now().Add(wait); ; time.Sleep(time.Millisecond) {
		err = unix.Rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) || !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
			break
		}
	}
	if err != nil && !errors.Is(err, unix.ENOENT) && first == nil {
		first = fmt.Errorf("removing %s: %w", dir, err)
	}
	return first
}

// writeFile writes one value to a kernel file, as one write.
func writeFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// CPUWeightPlan says whether a run's nice value can be given a cpu
// cgroup's weight on the system under root, and how: for corepin caps.
// On the live system a v1 cpu cgroup is made, weighted and removed again
// (what a run would do); under another root only the files are read.
func CPUWeightPlan(root fsroot.Root) (ok bool, how string) {
	mounts, err := readMounts(root)
	if err != nil {
		return false, err.Error()
	}
	own, err := ownCgroups(root)
	if err != nil {
		return false, err.Error()
	}
	if i := slices.IndexFunc(mounts, func(m mount) bool { return m.version == 2 }); i >= 0 {
		if parent := hierarchyDir(mounts[i], own[""]); parent != "" {
			if ctl, err := root.ReadFile(filepath.Join(parent, "cgroup.subtree_control")); err == nil {
				f := strings.Fields(string(ctl))
				if slices.Contains(f, "cpuset") && slices.Contains(f, "cpu") {
					return true, fmt.Sprintf("cpu.weight of the run's cgroup v2 below %s, whose cgroup.subtree_control delegates cpu", parent)
				}
			}
		}
	}
	if !slices.ContainsFunc(mounts, func(m mount) bool { return m.version == 1 && slices.Contains(m.controllers, "cpuset") }) {
		return false, "no cgroup v2 with cpu and cpuset delegated, and no cgroup v1 cpuset hierarchy for a run's cgroup"
	}
	i := slices.IndexFunc(mounts, func(m mount) bool { return m.version == 1 && slices.Contains(m.controllers, "cpu") })
	if i < 0 {
		return false, "no cgroup v1 cpu hierarchy is mounted"
	}
	if slices.Contains(mounts[i].controllers, "cpuset") {
		return false, "the cpu controller is bound with cpuset, whose run directory a realtime step must enter"
	}
	home := hierarchyDir(mounts[i], own["cpu"])
	if home == "" {
		return false, fmt.Sprintf("corepin's cpu cgroup %s is not under the mount %s", own["cpu"], mounts[i].dir)
	}
	plan := fmt.Sprintf("a cgroup v1 cpu cgroup below %s with cpu.shares of the nice value's weight (nice -20: %d)", home, NiceWeight(-20))
	if !root.IsHost() {
		return true, plan + "; not tried: " + root.String() + " is not this system"
	}
	cg := &cgroup{version: 1, name: fmt.Sprintf("corepin-%d-%d", os.Getpid(), cgroupSeq.Add(1)), dirs: map[string]string{}, home: map[string]string{}, fd: -1, cpuHome: home}
	w, err := cg.weigh(-20)
	if err != nil {
		return false, err.Error()
	}
	if err := cg.remove(); err != nil {
		return false, err.Error()
	}
	return true, fmt.Sprintf("%s; a probe read back %d", plan, w)
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
		if err := cg.leave(); err != nil {
			return err
		}
		return cg.remove()
	}
}
