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
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// startShield moves every other movable task off the target CPUs: into a
// complementary cpuset (cgroup v1 cpuset hierarchy, or cgroup v2 with the
// cpuset controller), then, for the threads no move reached, by narrowing
// their own CPU masks. Every step is in the session's journal before it is
// taken. corepin's own process and its parent (the shell that started it,
// so that commands started from it after system tune --shield can use the
// target) stay where they are, and so do the other corepins that run now,
// with their runs (findCorepins): the report lists them.
func startShield(m *Machine, s *Session, target cpuset.Set) (*shield, *evidence.ShieldReport, error) {
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
	mount, v2, err := cpusetMount(m.Root)
	if err != nil {
		return nil, nil, err
	}
	rep := &evidence.ShieldReport{CPUs: target, Others: others}
	j, _ := m.loadJournal() // a journal that cannot be used fails the first record below
	runs := findCorepins(m.Root, mount, j)
	for _, r := range runs.runs {
		if keep[r.PID] {
			// This corepin, or the shell it came from: its other
			// descendants are no run's, and leave the target as
			// everything does.
			runs.drop(r)
			continue
		}
		rep.Left = append(rep.Left, *r)
	}
	sh := &shield{root: m.Root, start: time.Now(), tracked: map[int]uint64{}}
	undo := func(err error) (*shield, *evidence.ShieldReport, error) {
		if _, rerr := s.Reset(); rerr != nil {
			err = fmt.Errorf("%w; putting the shield back: %v", err, rerr)
		}
		return nil, nil, err
	}
	if v2 {
		err = shieldV2(s, mount, others, keep, runs, rep)
	} else {
		err = shieldV1(s, mount, target, others, keep, runs, rep)
	}
	if err != nil {
		return undo(err)
	}
	if err := narrowThreads(m.Root, s, target, keep, runs, rep); err != nil {
		return undo(err)
	}
	for _, t := range rep.Unmovable {
		if ns, ok := threadRunNs(m.Root, t.TID); ok {
			sh.tracked[t.TID] = ns
		}
	}
	sh.start = time.Now()
	return sh, rep, nil
}

// cpusetMount is where the hierarchy with the cpuset controller is
// mounted, and whether it is cgroup v2 (see cgroupfs.CpusetHierarchy).
func cpusetMount(root fsroot.Root) (string, bool, error) {
	h, err := cgroupfs.CpusetHierarchy(root)
	return h.Dir, h.Version == 2, err
}

// insideCgroup says whether this process runs in the cgroup dir of the
// cpuset hierarchy, or in one nested in it.
func insideCgroup(root fsroot.Root, dir string) bool {
	own := ownCpuset(root)
	return own != "" && (own == dir || strings.HasPrefix(own, dir+"/"))
}

// shieldAround is the shield cgroup (named as cgroupfs names a shield) this
// process runs in, found by its name alone, or "": a shield whose
// journal cannot be read (another user's, one kept elsewhere with
// --journal) is known all the same.
//
// Every corepin command asks this at its start, so the process's own
// cgroup file is read first: only a cgroup path with a shield's name in
// it makes the mount table worth reading.
func shieldAround(root fsroot.Root) string {
	own, err := cgroupfs.ReadProcCgroup(root, "self")
	if err != nil || !namesShield(own) {
		return ""
	}
	mount, _, _ := cpusetMount(root)
	return shieldOf(ownCpuset(root), mount)
}

// namesShield says whether a cgroup path of /proc/PID/cgroup, in any
// hierarchy, passes through a directory named like a shield.
func namesShield(paths map[string]string) bool {
	for _, p := range paths {
		if slices.ContainsFunc(strings.Split(p, "/"), cgroupfs.IsShield) {
			return true
		}
	}
	return false
}

// shieldOf is the outermost directory named as a shield between
// the hierarchy's mount and the cgroup own, or "".
func shieldOf(own, mount string) string {
	rel, ok := strings.CutPrefix(own, mount+"/")
	if own == "" || mount == "" || !ok {
		return ""
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		if cgroupfs.IsShield(p) {
			return filepath.Join(mount, filepath.Join(parts[:i+1]...))
		}
	}
	return ""
}

// ownCpuset is this process's cgroup of the cpuset hierarchy, as a
// directory; "" when it cannot be told.
func ownCpuset(root fsroot.Root) string {
	mount, v2, err := cpusetMount(root)
	if err != nil {
		return ""
	}
	own, err := cgroupfs.ReadProcCgroup(root, "self")
	if err != nil {
		return ""
	}
	// cgroup v2's line has no controllers.
	ctl := "cpuset"
	if v2 {
		ctl = ""
	}
	if path, ok := own[ctl]; ok {
		return filepath.Join(mount, path)
	}
	return ""
}

// shieldV1 makes the complementary cpuset beside the root one, narrows
// the child cpusets that include the target (deepest first, as a parent
// cannot lose CPUs a child still has), and moves every task of the root
// cpuset into it, thread by thread. The run cgroups of the corepins that
// run now keep their CPUs.
func shieldV1(s *Session, mount string, target, others cpuset.Set, keep map[int]bool, runs *corepinRuns, rep *evidence.ShieldReport) error {
	rep.Hierarchy = "cgroup v1 cpuset"
	rel := strings.TrimPrefix(mount, "/")
	name := cgroupfs.NewName(cgroupfs.Shield)
	rep.Cgroup = rel + "/" + name
	var narrow []evidence.Change
	var dirs []string
	filepath.WalkDir(mount, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != mount && !runs.holds(p) {
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
			narrow = append(narrow, evidence.Change{Path: strings.TrimPrefix(d, "/") + "/cpuset.cpus", Value: rest.String(), Was: cpus.String(), Kind: List,
				Why: "a cpuset that included the target", BestEffort: true})
		}
	}
	if err := s.record(evidence.Entry{Op: evidence.OpMkdir, Path: rep.Cgroup, Old: rel + "/tasks"}); err != nil {
		return err
	}
	// The root cpuset's memory nodes are copied (a v1 cpuset takes no task
	// without), and its CPUs read back.
	g, err := cgroupfs.Make(cgroupfs.Parent{Version: 1, Dirs: map[string]string{"cpuset": mount}}, name, cgroupfs.Limits{CPUs: others})
	if err != nil {
		return err
	}
	if len(narrow) > 0 {
		if _, err := s.Apply(context.Background(), narrow); err != nil {
			return err
		}
	}
	move := func(tid int) error { return g.AddThread("cpuset", tid) }
	return moveTasks(s.m.Root, s, filepath.Join(mount, "tasks"), rel+"/tasks", rep.Cgroup+"/tasks", move, keep, runs, rep)
}

// shieldV2 makes the complementary cgroup under the v2 root, with the
// cpuset controller enabled for the root's children, and moves every
// process of the root cgroup into it. Kernel threads cannot leave the
// root cgroup under v2; narrowThreads deals with them.
func shieldV2(s *Session, mount string, others cpuset.Set, keep map[int]bool, runs *corepinRuns, rep *evidence.ShieldReport) error {
	rep.Hierarchy = "cgroup v2"
	rel := strings.TrimPrefix(mount, "/")
	name := cgroupfs.NewName(cgroupfs.Shield)
	rep.Cgroup = rel + "/" + name
	ctl, err := cgroupfs.Subtree(fsroot.Host, mount)
	if err != nil {
		return fmt.Errorf("reading the root cgroup's controllers: %w", err)
	}
	if !slices.Contains(ctl, "cpuset") {
		if err := s.record(evidence.Entry{Op: evidence.OpControl, Path: rel + "/cgroup.subtree_control", New: "cpuset"}); err != nil {
			return err
		}
		if err := cgroupfs.Enable(mount, "cpuset"); err != nil {
			return fmt.Errorf("enabling cpuset for the root cgroup's children: %w", err)
		}
	}
	if err := s.record(evidence.Entry{Op: evidence.OpMkdir, Path: rep.Cgroup, Old: rel + "/cgroup.procs"}); err != nil {
		return err
	}
	g, err := cgroupfs.Make(cgroupfs.Parent{Version: 2, Dirs: map[string]string{"": mount}}, name, cgroupfs.Limits{CPUs: others})
	if err != nil {
		return err
	}
	move := func(pid int) error { return g.AddProcess("", pid) }
	return moveTasks(s.m.Root, s, filepath.Join(mount, "cgroup.procs"), rel+"/cgroup.procs", rep.Cgroup+"/cgroup.procs", move, keep, runs, rep)
}

// moveTasks moves the IDs listed in from (a tasks or cgroup.procs file)
// into the shield with move, except corepin's own and those of the
// corepin runs left in place. All moves are journaled first, in one
// durable write, the shield's file newRel beside the one they left,
// oldRel; those the kernel refuses (kernel threads) leave the journal
// again.
func moveTasks(root fsroot.Root, s *Session, from, oldRel, newRel string, move func(id int) error, keep map[int]bool, runs *corepinRuns, rep *evidence.ShieldReport) error {
	ids, err := cgroupfs.IDs(from)
	if err != nil {
		return fmt.Errorf("listing the tasks to move: %w", err)
	}
	var entries []evidence.Entry
	for _, id := range ids {
		st, err := readStatus(root, id)
		if err != nil || keep[st.tgid] || runs.run(st.tgid) != nil || st.kernel {
			continue
		}
		start := st.start
		entries = append(entries, evidence.Entry{Op: evidence.OpMove, Path: newRel, Old: oldRel, New: strconv.Itoa(id), TID: id, TaskStart: start, Mask: st.cpus})
	}
	if err := s.record(entries...); err != nil {
		return err
	}
	refused := map[int]bool{}
	for _, e := range entries {
		if err := move(e.TID); err != nil {
			refused[e.TID] = true
			continue
		}
		rep.Moved++
	}
	if len(refused) == 0 {
		return nil
	}
	return s.forget(func(e evidence.Entry) bool { return e.Op == evidence.OpMove && e.Path == newRel && refused[e.TID] })
}

// narrowThreads takes the target out of the CPU mask of every thread that
// still has it (outside corepin's own process), where the mask has other
// CPUs and the kernel allows it; the rest are reported as unmovable, and
// so are the threads of the corepin runs left in place that may use the
// target.
func narrowThreads(root fsroot.Root, s *Session, target cpuset.Set, keep map[int]bool, runs *corepinRuns, rep *evidence.ShieldReport) error {
	type cand struct {
		st    status
		start uint64
		mask  cpuset.Set
	}
	var cands []cand
	for _, tid := range allThreads(root) {
		st, err := readStatus(root, tid)
		if err != nil || keep[st.tgid] {
			continue
		}
		mask, err := cpuset.Parse(st.cpus)
		if err != nil || mask.Intersect(target).IsEmpty() {
			continue
		}
		switch r := runs.run(st.tgid); {
		case r != nil:
			rep.Unmovable = append(rep.Unmovable, evidence.Task{TID: tid, Name: st.name, CPUs: st.cpus,
				Why: fmt.Sprintf("of the run of corepin pid %d, which measures now: left in place", r.PID)})
			continue
		case st.kernel:
			// Moving kernel threads can change their masks for good (a
			// workqueue rescuer follows its pool), so they stay, as with
			// cset shield's default; their time on the target is reported.
			rep.Unmovable = append(rep.Unmovable, evidence.Task{TID: tid, Name: st.name, CPUs: st.cpus, Why: "a kernel thread, left where the kernel put it"})
			continue
		case mask.Difference(target).IsEmpty():
			rep.Unmovable = append(rep.Unmovable, evidence.Task{TID: tid, Name: st.name, CPUs: st.cpus, Why: "pinned to the target alone"})
			continue
		}
		cands = append(cands, cand{st, st.start, mask})
	}
	var entries []evidence.Entry
	for _, c := range cands {
		entries = append(entries, evidence.Entry{Op: evidence.OpAffinity, Path: fmt.Sprintf("proc/%d/task/%d", c.st.tgid, c.st.tid), Old: c.st.cpus,
			New: c.mask.Difference(target).String(), TID: c.st.tid, TaskStart: c.start})
	}
	if err := s.record(entries...); err != nil {
		return err
	}
	refused := map[int]bool{}
	for _, c := range cands {
		if err := sched.SetAffinity(c.st.tid, c.mask.Difference(target)); err != nil {
			refused[c.st.tid] = true
			why := "the kernel refuses to change its CPUs: " + errno(err)
			if errors.Is(err, unix.EINVAL) {
				why = "a kernel thread whose CPUs cannot be changed (EINVAL)"
			}
			rep.Unmovable = append(rep.Unmovable, evidence.Task{TID: c.st.tid, Name: c.st.name, CPUs: c.st.cpus, Why: why})
			continue
		}
		rep.Narrowed++
	}
	if len(refused) == 0 {
		return nil
	}
	return s.forget(func(e evidence.Entry) bool { return e.Op == evidence.OpAffinity && refused[e.TID] })
}

// status is what corepin reads from /proc/TID/status and stat.
type status struct {
	tid, tgid int
	name      string
	cpus      string // Cpus_allowed_list
	kernel    bool   // a kernel thread (PF_KTHREAD)
	start     uint64 // clock ticks since boot: with the TID, the task
}

// readStatus reads a task's status and stat under root; a task that
// ended between the two reads is an error.
func readStatus(root fsroot.Root, tid int) (status, error) {
	ps, err := procfs.ReadStatus(root, tid)
	if err != nil {
		return status{}, err
	}
	st := status{tid: tid, tgid: ps.Tgid, name: ps.Name, cpus: ps.CPUsAllowed}
	ts, err := procfs.ReadTaskStat(root, tid)
	if err != nil {
		return status{}, err
	}
	st.kernel, st.start = ts.Kernel(), ts.StartTime
	return st, nil
}

// allThreads lists every thread of every process under root.
func allThreads(root fsroot.Root) []int {
	pids, _ := procfs.PIDs(root)
	var out []int
	for _, pid := range pids {
		tids, _ := procfs.Tasks(root, pid)
		out = append(out, tids...)
	}
	return out
}

// threadRunNs is a thread's time on a CPU so far, the first field of
// /proc/TID/schedstat.
func threadRunNs(root fsroot.Root, tid int) (uint64, bool) {
	ss, err := procfs.ReadSchedStat(root, tid, tid)
	return uint64(ss.Run), err == nil
}

// active returns the online CPUs, which sched_getaffinity limits a mask
// to.
func active() cpuset.Set {
	s, _ := (&reader{root: fsroot.Host}).list(cpuDir + "/online")
	return s
}

// sameTask reports whether the entry's task still runs under root's
// /proc (its TID with the same start time).
func sameTask(root fsroot.Root, e evidence.Entry) bool {
	return procfs.Process{PID: e.TID, Start: e.TaskStart}.Alive(root)
}

// undoMove moves a task back to the cgroup it came from and gives it
// back its CPU mask; a task that has ended needs nothing.
func (m *Machine) undoMove(e evidence.Entry) error {
	if !sameTask(m.Root, e) {
		return nil
	}
	if err := writeFile(m.path(e.Old), []byte(strconv.Itoa(e.TID))); err != nil {
		if errors.Is(err, unix.ESRCH) || !sameTask(m.Root, e) {
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
	if now, err := sched.GetAffinity(e.TID); err == nil && !now.Equal(want.Intersect(active())) {
		if err := sched.SetAffinity(e.TID, want); err != nil && sameTask(m.Root, e) {
			return fmt.Errorf("giving task %d its CPUs %s back: %w", e.TID, e.Mask, err)
		}
	}
	return nil
}

// undoAffinity gives a thread its CPU mask back and reads it back.
func (m *Machine) undoAffinity(e evidence.Entry) error {
	if !sameTask(m.Root, e) {
		return nil
	}
	want, err := cpuset.Parse(e.Old)
	if err != nil {
		return err
	}
	if err := sched.SetAffinity(e.TID, want); err != nil {
		if !sameTask(m.Root, e) {
			return nil
		}
		return fmt.Errorf("giving thread %d its CPUs %s back: %w", e.TID, e.Old, err)
	}
	// The kernel reads back the mask's online part.
	if now, err := sched.GetAffinity(e.TID); err == nil && !now.Equal(want.Intersect(active())) {
		return fmt.Errorf("thread %d: %w: CPUs %s, want %s", e.TID, ErrNotHeld, now, want.Intersect(active()))
	}
	return nil
}

// undoMkdir moves whatever is left in a cgroup corepin made (tasks forked
// there during the run) to the cgroup file in Old, then removes it.
func (m *Machine) undoMkdir(e evidence.Entry) error {
	dir := m.path(e.Path)
	if e.Old != "" {
		ids, err := cgroupfs.IDs(filepath.Join(dir, filepath.Base(e.Old)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		for _, id := range ids {
			cgroupfs.Write(m.path(e.Old), strconv.Itoa(id)) // one that ended needs no move
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
func (m *Machine) undoControl(e evidence.Entry) error {
	dir := filepath.Dir(m.path(e.Path))
	ctl, err := cgroupfs.Subtree(fsroot.Host, dir)
	if err != nil {
		return err
	}
	if !slices.Contains(ctl, e.New) {
		return nil
	}
	if err := cgroupfs.Disable(dir, e.New); err != nil {
		return fmt.Errorf("disabling %s in %s: %w", e.New, e.Path, err)
	}
	return nil
}
