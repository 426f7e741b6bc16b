package system

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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

// startShield moves every other movable task off the target CPUs: into a
// complementary cpuset (cgroup v1 cpuset hierarchy, or cgroup v2 with the
// cpuset controller), then, for the threads no move reached, by narrowing
// their own CPU masks. Every step is in the session's journal before it is
// taken. corepin's own process and its parent (the shell that started it,
// so that commands started from it after system tune --shield can use the
// target) stay where they are.
func startShield(m *Machine, s *Session, target cpuset.Set) (*shield, *ShieldReport, error) {
	if !m.Root.IsHost() {
		return nil, nil, fmt.Errorf("a shield moves the running kernel's tasks; it needs the root /, not %s", m.Root)
	}
	if os.Geteuid() != 0 {
		return nil, nil, fmt.Errorf("a shield moves other users' tasks between cgroups: %w (run as root)", unix.EPERM)
	}
	online, ok := (&reader{root: m.Root}).list(cpuDir + "/online")
	if !ok {
		return nil, nil, fmt.Errorf("reading the online CPUs")
	}
	others := online.Difference(target)
	if others.IsEmpty() {
		return nil, nil, fmt.Errorf("cannot shield CPUs %s: no other CPU is online for the rest of the machine", target)
	}
	keep := map[int]bool{os.Getpid(): true, os.Getppid(): true}
	mount, v2, err := cpusetMount()
	if err != nil {
		return nil, nil, err
	}
	rep := &ShieldReport{CPUs: target, Others: others}
	sh := &shield{start: time.Now(), tracked: map[int]uint64{}}
	undo := func(err error) (*shield, *ShieldReport, error) {
		if _, rerr := s.Reset(); rerr != nil {
			err = fmt.Errorf("%w; putting the shield back: %v", err, rerr)
		}
		return nil, nil, err
	}
	if v2 {
		err = shieldV2(s, mount, others, keep, rep)
	} else {
		err = shieldV1(s, mount, target, others, keep, rep)
	}
	if err != nil {
		return undo(err)
	}
	if err := narrowThreads(s, target, keep, rep); err != nil {
		return undo(err)
	}
	for _, t := range rep.Unmovable {
		if ns, ok := threadRunNs(t.TID); ok {
			sh.tracked[t.TID] = ns
		}
	}
	sh.start = time.Now()
	return sh, rep, nil
}

// cpusetMount finds the hierarchy that holds the cpuset controller: a
// cgroup v1 mount with the cpuset option, else the cgroup v2 mount if its
// root offers cpuset.
func cpusetMount() (string, bool, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", false, fmt.Errorf("finding the cpuset hierarchy: %w", err)
	}
	v1, v2 := parseMountinfo(string(data))
	if v1 != "" {
		return v1, false, nil
	}
	if v2 != "" {
		ctl, _ := os.ReadFile(filepath.Join(v2, "cgroup.controllers"))
		if slices.Contains(strings.Fields(string(ctl)), "cpuset") {
			return v2, true, nil
		}
	}
	return "", false, fmt.Errorf("no cpuset controller: neither a cgroup v1 cpuset mount nor cgroup v2 with cpuset (%w)", errors.ErrUnsupported)
}

// parseMountinfo returns the mount point of the first cgroup v1 hierarchy
// with the cpuset controller and of the first cgroup v2 mount. A line is
// "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE
// SUPEROPTIONS" (proc(5)).
func parseMountinfo(text string) (v1, v2 string) {
	for _, line := range strings.Split(text, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		switch {
		case g[0] == "cgroup" && v1 == "" && slices.Contains(strings.Split(g[2], ","), "cpuset"):
			v1 = f[4]
		case g[0] == "cgroup2" && v2 == "":
			v2 = f[4]
		}
	}
	return v1, v2
}

func shieldName() string { return fmt.Sprintf("corepin-shield-%d", os.Getpid()) }

// shieldV1 makes the complementary cpuset beside the root one, narrows
// the child cpusets that include the target (deepest first, as a parent
// cannot lose CPUs a child still has), and moves every task of the root
// cpuset into it, thread by thread.
func shieldV1(s *Session, mount string, target, others cpuset.Set, keep map[int]bool, rep *ShieldReport) error {
	rep.Hierarchy = "cgroup v1 cpuset"
	rel := strings.TrimPrefix(mount, "/")
	name := shieldName()
	rep.Cgroup = rel + "/" + name
	var narrow []Change
	var dirs []string
	filepath.WalkDir(mount, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != mount {
			dirs = append(dirs, p)
		}
		return nil
	})
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, d := range dirs {
		cpus, ok := (&reader{root: fsroot.Host}).list(strings.TrimPrefix(d, "/") + "/cpuset.cpus")
		if !ok || cpus.Intersect(target).IsEmpty() {
			continue
		}
		if rest := cpus.Difference(target); !rest.IsEmpty() {
			narrow = append(narrow, Change{Path: strings.TrimPrefix(d, "/") + "/cpuset.cpus", Value: rest.String(), Was: cpus.String(), Kind: List,
				Why: "a cpuset that included the target", BestEffort: true})
		}
	}
	if err := s.record(Entry{Op: OpMkdir, Path: rep.Cgroup, Old: rel + "/tasks"}); err != nil {
		return err
	}
	dir := filepath.Join(mount, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("creating the cpuset %s: %w", dir, err)
	}
	mems, err := os.ReadFile(filepath.Join(mount, "cpuset.mems"))
	if err != nil {
		return fmt.Errorf("reading the root cpuset's memory nodes: %w", err)
	}
	if err := writeFile(filepath.Join(dir, "cpuset.cpus"), []byte(others.String())); err != nil {
		return fmt.Errorf("setting the CPUs of %s: %w", dir, err)
	}
	if err := writeFile(filepath.Join(dir, "cpuset.mems"), mems); err != nil {
		return fmt.Errorf("setting the memory nodes of %s: %w", dir, err)
	}
	if len(narrow) > 0 {
		if _, err := s.Apply(context.Background(), narrow); err != nil {
			return err
		}
	}
	return moveTasks(s, filepath.Join(mount, "tasks"), rel+"/tasks", rep.Cgroup+"/tasks", keep, rep)
}

// shieldV2 makes the complementary cgroup under the v2 root, with the
// cpuset controller enabled for the root's children, and moves every
// process of the root cgroup into it. Kernel threads cannot leave the
// root cgroup under v2; narrowThreads deals with them.
func shieldV2(s *Session, mount string, others cpuset.Set, keep map[int]bool, rep *ShieldReport) error {
	rep.Hierarchy = "cgroup v2"
	rel := strings.TrimPrefix(mount, "/")
	name := shieldName()
	rep.Cgroup = rel + "/" + name
	ctl, err := os.ReadFile(filepath.Join(mount, "cgroup.subtree_control"))
	if err != nil {
		return fmt.Errorf("reading the root cgroup's controllers: %w", err)
	}
	if !slices.Contains(strings.Fields(string(ctl)), "cpuset") {
		if err := s.record(Entry{Op: OpControl, Path: rel + "/cgroup.subtree_control", New: "cpuset"}); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(mount, "cgroup.subtree_control"), []byte("+cpuset")); err != nil {
			return fmt.Errorf("enabling cpuset for the root cgroup's children: %w", err)
		}
	}
	if err := s.record(Entry{Op: OpMkdir, Path: rep.Cgroup, Old: rel + "/cgroup.procs"}); err != nil {
		return err
	}
	dir := filepath.Join(mount, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("creating the cgroup %s: %w", dir, err)
	}
	if err := writeFile(filepath.Join(dir, "cpuset.cpus"), []byte(others.String())); err != nil {
		return fmt.Errorf("setting the CPUs of %s: %w", dir, err)
	}
	return moveTasks(s, filepath.Join(mount, "cgroup.procs"), rel+"/cgroup.procs", rep.Cgroup+"/cgroup.procs", keep, rep)
}

// moveTasks moves the IDs listed in from (a tasks or cgroup.procs file)
// to the file to, except corepin's own. All moves are journaled first, in
// one durable write; those the kernel refuses (kernel threads) leave the
// journal again.
func moveTasks(s *Session, from, oldRel, newRel string, keep map[int]bool, rep *ShieldReport) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("listing the tasks to move: %w", err)
	}
	var entries []Entry
	for _, f := range strings.Fields(string(data)) {
		id, err := strconv.Atoi(f)
		if err != nil {
			continue
		}
		st, err := readStatus(id)
		if err != nil || keep[st.tgid] || st.kernel {
			continue
		}
		start, err := processStart(id)
		if err != nil {
			continue
		}
		entries = append(entries, Entry{Op: OpMove, Path: newRel, Old: oldRel, New: strconv.Itoa(id), TID: id, TaskStart: start, Mask: st.cpus})
	}
	if err := s.record(entries...); err != nil {
		return err
	}
	refused := map[int]bool{}
	to := filepath.Join("/", newRel)
	for _, e := range entries {
		if err := writeFile(to, []byte(e.New)); err != nil {
			refused[e.TID] = true
			continue
		}
		rep.Moved++
	}
	if len(refused) == 0 {
		return nil
	}
	return s.forget(func(e Entry) bool { return e.Op == OpMove && e.Path == newRel && refused[e.TID] })
}

// narrowThreads takes the target out of the CPU mask of every thread that
// still has it (outside corepin's own process), where the mask has other
// CPUs and the kernel allows it; the rest are reported as unmovable.
func narrowThreads(s *Session, target cpuset.Set, keep map[int]bool, rep *ShieldReport) error {
	type cand struct {
		st    status
		start uint64
		mask  cpuset.Set
	}
	var cands []cand
	for _, tid := range allThreads() {
		st, err := readStatus(tid)
		if err != nil || keep[st.tgid] {
			continue
		}
		mask, err := cpuset.Parse(st.cpus)
		if err != nil || mask.Intersect(target).IsEmpty() {
			continue
		}
		switch {
		case st.kernel:
			// Moving kernel threads can change their masks for good (a
			// workqueue rescuer follows its pool), so they stay, as with
			// cset shield's default; their time on the target is reported.
			rep.Unmovable = append(rep.Unmovable, Task{TID: tid, Name: st.name, CPUs: st.cpus, Why: "a kernel thread, left where the kernel put it"})
			continue
		case mask.Difference(target).IsEmpty():
			rep.Unmovable = append(rep.Unmovable, Task{TID: tid, Name: st.name, CPUs: st.cpus, Why: "pinned to the target alone"})
			continue
		}
		start, err := processStart(tid)
		if err != nil {
			continue
		}
		cands = append(cands, cand{st, start, mask})
	}
	var entries []Entry
	for _, c := range cands {
		entries = append(entries, Entry{Op: OpAffinity, Path: fmt.Sprintf("proc/%d/task/%d", c.st.tgid, c.st.tid), Old: c.st.cpus,
			New: c.mask.Difference(target).String(), TID: c.st.tid, TaskStart: c.start})
	}
	if err := s.record(entries...); err != nil {
		return err
	}
	refused := map[int]bool{}
	for _, c := range cands {
		if err := setAffinity(c.st.tid, c.mask.Difference(target)); err != nil {
			refused[c.st.tid] = true
			why := "the kernel refuses to change its CPUs: " + errno(err)
			if errors.Is(err, unix.EINVAL) {
				why = "a kernel thread whose CPUs cannot be changed (EINVAL)"
			}
			rep.Unmovable = append(rep.Unmovable, Task{TID: c.st.tid, Name: c.st.name, CPUs: c.st.cpus, Why: why})
			continue
		}
		rep.Narrowed++
	}
	if len(refused) == 0 {
		return nil
	}
	return s.forget(func(e Entry) bool { return e.Op == OpAffinity && refused[e.TID] })
}

// status is what corepin reads from /proc/TID/status and stat.
type status struct {
	tid, tgid int
	name      string
	cpus      string // Cpus_allowed_list
	kernel    bool   // a kernel thread (PF_KTHREAD)
}

func readStatus(tid int) (status, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return status{}, err
	}
	st := status{tid: tid}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Name":
			st.name = v
		case "Tgid":
			st.tgid, _ = strconv.Atoi(v)
		case "Cpus_allowed_list":
			st.cpus = v
		}
	}
	st.kernel = isKernelThread(tid)
	return st, nil
}

// isKernelThread reads the PF_KTHREAD flag, field 9 of /proc/TID/stat.
func isKernelThread(tid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 7 {
		return false
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return err == nil && flags&0x00200000 != 0
}

// allThreads lists every thread of every process.
func allThreads() []int {
	procs, _ := os.ReadDir("/proc")
	var out []int
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		tasks, _ := os.ReadDir("/proc/" + p.Name() + "/task")
		for _, t := range tasks {
			if tid, err := strconv.Atoi(t.Name()); err == nil {
				out = append(out, tid)
			}
		}
	}
	return out
}

// threadRunNs is a thread's time on a CPU so far, the first field of
// /proc/TID/schedstat.
func threadRunNs(tid int) (uint64, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/schedstat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, false
	}
	n, err := strconv.ParseUint(f[0], 10, 64)
	return n, err == nil
}

func setAffinity(tid int, cpus cpuset.Set) error {
	var set unix.CPUSet
	for _, c := range cpus.CPUs() {
		if c >= 1024 {
			return fmt.Errorf("CPU %d: %w", c, unix.EINVAL)
		}
		set.Set(c)
	}
	return unix.SchedSetaffinity(tid, &set)
}

func getAffinity(tid int) (cpuset.Set, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &set); err != nil {
		return cpuset.Set{}, err
	}
	var cpus []int
	for c := 0; c < 1024; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpuset.Of(cpus...), nil
}

// active returns the online CPUs, which sched_getaffinity limits a mask
// to.
func active() cpuset.Set {
	s, _ := (&reader{root: fsroot.Host}).list(cpuDir + "/online")
	return s
}

// sameTask reports whether the entry's task still runs (its TID with the
// same start time).
func sameTask(e Entry) bool {
	start, err := processStart(e.TID)
	return err == nil && start == e.TaskStart
}

// undoMove moves a task back to the cgroup it came from and gives it
// back its CPU mask; a task that has ended needs nothing.
func (m *Machine) undoMove(e Entry) error {
	if !sameTask(e) {
		return nil
	}
	if err := writeFile(m.path(e.Old), []byte(strconv.Itoa(e.TID))); err != nil {
		if errors.Is(err, unix.ESRCH) || !sameTask(e) {
			return nil
		}
		return fmt.Errorf("moving task %d back to %s: %w", e.TID, e.Old, err)
	}
	if e.Mask == "" {
		return nil
	}
	want, err := cpuset.Parse(e.Mask)
	if err != nil {
		return err
	}
	if now, err := getAffinity(e.TID); err == nil && !now.Equal(want.Intersect(active())) {
		if err := setAffinity(e.TID, want); err != nil && sameTask(e) {
			return fmt.Errorf("giving task %d its CPUs %s back: %w", e.TID, e.Mask, err)
		}
	}
	return nil
}

// undoAffinity gives a thread its CPU mask back and reads it back.
func undoAffinity(e Entry) error {
	if !sameTask(e) {
		return nil
	}
	want, err := cpuset.Parse(e.Old)
	if err != nil {
		return err
	}
	if err := setAffinity(e.TID, want); err != nil {
		if !sameTask(e) {
			return nil
		}
		return fmt.Errorf("giving thread %d its CPUs %s back: %w", e.TID, e.Old, err)
	}
	// The kernel reads back the mask's online part.
	if now, err := getAffinity(e.TID); err == nil && !now.Equal(want.Intersect(active())) {
		return fmt.Errorf("thread %d: %w: CPUs %s, want %s", e.TID, ErrNotHeld, now, want.Intersect(active()))
	}
	return nil
}

// undoMkdir moves whatever is left in a cgroup corepin made (tasks forked
// there during the run) to the cgroup file in Old, then removes it.
func (m *Machine) undoMkdir(e Entry) error {
	dir := m.path(e.Path)
	if e.Old != "" {
		data, err := os.ReadFile(filepath.Join(dir, filepath.Base(e.Old)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		for _, id := range strings.Fields(string(data)) {
			writeFile(m.path(e.Old), []byte(id)) // one that ended needs no move
		}
	}
	var err error
	for range 50 {
		// A task just moved out may still count for a moment.
		if err = os.Remove(dir); err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("removing the cgroup %s: %w", e.Path, err)
}

// undoControl disables the controller corepin enabled.
func (m *Machine) undoControl(e Entry) error {
	path := m.path(e.Path)
	ctl, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !slices.Contains(strings.Fields(string(ctl)), e.New) {
		return nil
	}
	if err := writeFile(path, []byte("-"+e.New)); err != nil {
		return fmt.Errorf("disabling %s in %s: %w", e.New, e.Path, err)
	}
	return nil
}
