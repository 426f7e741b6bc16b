package tree

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/account"
	"corepin.dev/corepin/internal/busy"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/oncpu"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// Tree holds one run's processes: the command in its own process group,
// corepin the subreaper of its orphans, and a cgroup where the kernel
// allows one. It finds every live process of the run, ends them all, and
// reaps the orphans corepin inherited.
type Tree struct {
	root  fsroot.Root
	cg    *cgroup
	rep   *evidence.TreeReport
	guard Guard // told of every cgroup and process group that would outlive corepin
	pid   int   // the command; pid is also the process group's id
	mu    sync.Mutex
	// seen remembers every live process of the run found so far by its
	// start time, so that one that left the group (setsid) is still
	// ended, and a reused PID is not. A process that has gone is dropped
	// from it, or a run whose work forks all the time would read the
	// /proc of every process it ever had at every look (a shell loop that
	// forks 20 times a second made corepin read 15,000 missing /proc files
	// a second after 40 minutes); ever keeps every PID the run had, so that
	// its own short-lived processes are not named among the others.
	seen  map[int]uint64
	ever  map[int]bool
	ended map[int]bool
	sent  unix.Signal // the last signal corepin sent the tree
	// exited is closed when the command has exited (not yet reaped), at
	// exitAt (CLOCK_MONOTONIC).
	exited chan struct{}
	exitAt time.Duration
	// takeBack returns the terminal to corepin when the command had it.
	takeBack func()
	// launched: the command is the launcher, which chooses its scheduling
	// after the fork; its priority scope is settled once it runs.
	launched bool
	// meter reads the target's busy time just before the fork (before)
	// and once the tree has ended (after), for the others' time on it.
	meter         *busy.Meter
	before, after busy.Reading
	haveBusy      bool
	// cgBefore is the run cgroup's account at the first reading: the
	// starting thread's time in it before the window, which is not the
	// work's time in the window (nil without a cgroup account).
	cgBefore *account.CgroupAccount
	// tracer, when set, is snapshot with the busy readings: who ran on
	// the target between them (trace).
	tracer *oncpu.Tracer
	trace  *Trace
	// forker is the thread that read the target before the fork and
	// forked the command: corepin's, in the run's cgroups meanwhile, so
	// that its time on the target is the work's in their account.
	forker int
	// outside are the run's processes found outside its cgroup's account
	// (one that wrote its PID into another cgroup), by PID and start
	// time, with their CPU time when last seen: the cgroup's account
	// misses them, so they are counted from /proc. lastIn is the CPU time
	// (ticks) of each process of the run when it was last seen inside,
	// where a move out must have come after.
	outside     map[int]outsider
	outsideGone []outsider
	lastIn      map[int]uint64
	// own is the CPU time of corepin's thread that forks the command at
	// the first reading (ownFrom) and once it has left the target
	// (ownTo, wentOff set); ownInWork says the thread was inside the
	// run's CPU account while on the target (v1 cpuacct, which it leaves
	// only after it left the target), where that time is the work's.
	ownFrom, ownTo time.Duration
	wentOff        bool
	ownInWork      bool
}

// outsider is a process of the run seen outside its cgroup. The kernel
// does not say when it moved, only that it was inside at one look and
// outside at the next: what it used outside lies between last-first and
// last-from.
type outsider struct {
	start uint64
	// first and last are its CPU time (ticks) when first and last seen
	// outside: what it used between them the cgroup did not account.
	first, last uint64
	// from is its CPU time when it was last seen inside, 0 when it never
	// was (born outside, or moved before the first look): it left after.
	from uint64
	cpu  int // where it last ran
}

// Config is how one run's tree is to be held.
type Config struct {
	// Root is the folder holding proc/ where the run's processes are
	// read; the live system by default.
	Root fsroot.Root
	// Target are the CPUs the work runs on; CPUs are those its cgroup
	// confines it to (the target, or for a run that is only observed the
	// CPUs corepin was allowed).
	Target, CPUs cpuset.Set
	// NoCgroup keeps the run to its process group and corepin's
	// subreaping.
	NoCgroup bool
	// Guard is told of every cgroup and process group that would outlive
	// corepin; nil for none.
	Guard Guard
	// Tracer, when set, is snapshot with the busy readings: who ran on
	// the target between them.
	Tracer *oncpu.Tracer
	// Report is filled in as the tree is held and ended.
	Report *evidence.TreeReport
}

// New prepares the containment of a run: corepin the subreaper, the
// hierarchies read once for the busy meter and the run's cgroup, the
// guard started and the cgroup made where the kernel allows one (the
// report says why not, where not).
func New(c Config) *Tree {
	if c.Guard == nil {
		c.Guard = noGuard{}
	}
	rep := c.Report
	h, herr := cgroupfs.Find(c.Root) // the hierarchies, for the busy meter and the run's cgroup
	t := &Tree{root: c.Root, rep: rep, seen: map[int]uint64{}, ever: map[int]bool{}, ended: map[int]bool{}, lastIn: map[int]uint64{},
		exited: make(chan struct{}), meter: busy.NewMeter(c.Root, h, c.Target), guard: c.Guard, tracer: c.Tracer}
	rep.Mechanism = MechanismProcessGroup
	if err := becomeSubreaper(); err != nil {
		rep.Errors = append(rep.Errors, err.Error())
	} else {
		rep.Subreaper = true
	}
	if c.NoCgroup {
		rep.NoCgroup = "not asked for"
		return t
	}
	t.guard.Start(c.Target) // started before the first change that would outlive corepin
	if herr != nil {
		rep.NoCgroup = herr.Error()
		return t
	}
	cg, why := newCgroup(h, c.CPUs)
	if cg == nil {
		rep.NoCgroup = why
		return t
	}
	t.cg = cg
	t.guard.Cgroup(cg.Version, cg.Name, cg.Dirs)
	rep.Mechanism, rep.Cgroup, rep.CgroupCPUs = cg.Mechanism(), cg.SortedDirs(), cg.CPUs
	return t
}

// Prepare puts the command in a process group of its own and, on cgroup
// v2, into the run's cgroup at fork; launched says the command is the
// launcher, which chooses its scheduling after the fork.
func (t *Tree) Prepare(cmd *exec.Cmd, launched bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	t.launched = launched
	t.takeBack = foreground(cmd, cmd.Stdin)
	if t.cg != nil && t.cg.Version == 2 {
		fd, _ := t.cg.FD() // opened as the cgroup was made
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	}
	// An orphan may hold the command's output pipes open; the tree is
	// ended before the wait, and Wait does not wait long for what escaped.
	cmd.WaitDelay = 500 * time.Millisecond
}

// Start starts cmd from the calling thread, which must be locked to its
// goroutine, inside the run's cgroup, and sets *at to the time just
// before the fork and exec. Out of the run's cpuset the thread calls
// off, which moves it where corepin's other threads are kept. left is
// false when the thread could not go back to its own cgroups: it must
// then end with its goroutine.
func (t *Tree) Start(cmd *exec.Cmd, at *time.Duration, off func()) (left bool, err error) {
	// The command copies this thread's scheduling at the fork: what it
	// reads back now is what the command's priority will be.
	weigh := func(move func() error) {
		if t.launched {
			return
		}
		a, err := sched.GetAttr(0)
		if err != nil {
			t.rep.PriorityNote = fmt.Sprintf("reading the starting thread's scheduling: %v", err)
			return
		}
		t.weigh(a, move)
	}
	if t.cg == nil {
		weigh(nil)
		t.guard.Ready() // nothing of the run is left to itself should corepin die
		t.readBefore()
		*at = monotonic()
		err := cmd.Start()
		t.waitExit(cmd, err)
		return true, err
	}
	// Out of the run's cpuset, the thread moves to where corepin's other
	// threads are kept, as it would after its restore, before it leaves
	// the command's cpu cgroup (see cgroup.leave).
	leave := func() { off(); t.LeftTarget() }
	t.ownInWork = t.cg.Version == 1 && t.cg.Dirs["cpuacct"] != ""
	// Entering a v1 cgroup takes milliseconds (the kernel waits for an
	// RCU grace period); the command's time starts after it.
	if err := t.cg.enter(); err != nil {
		return t.cg.leave(leave) == nil, err
	}
	weigh(t.cg.enterWeighted)
	t.guard.Ready()
	t.readBefore()
	*at = monotonic()
	err = cmd.Start()
	t.waitExit(cmd, err)
	if lerr := t.cg.leave(leave); lerr != nil {
		t.addError(lerr.Error())
		return false, err
	}
	return true, err
}

// waitExit notes the moment the command exits, from a goroutine of its
// own started at once, so that the time does not include what corepin
// does after the start (putting its thread back, leaving the cgroup). It
// waits without reaping: the PID stays the command's until Wait.
func (t *Tree) waitExit(cmd *exec.Cmd, startErr error) {
	if startErr != nil {
		return
	}
	pid := cmd.Process.Pid
	go func() {
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		t.exitAt = monotonic()
		close(t.exited)
	}()
}

// Started records the command's PID, the process group's id.
func (t *Tree) Started(pid int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pid, t.rep.PGID = pid, pid
	if st, ok := t.stat(pid); ok {
		t.guard.Start(t.meter.CPUs())
		t.guard.Group(pid, st.StartTime)
	}
	if t.launched {
		// The launcher has set up its thread and become the command; what
		// it may have forked meanwhile stays in the session's autogroup.
		a, err := sched.GetAttr(pid)
		if err != nil {
			t.rep.PriorityNote = fmt.Sprintf("reading the command's scheduling: %v", err)
			return
		}
		t.weigh(a, t.moveWeighted)
	}
}

// moveWeighted moves the launched command and every process of the run it
// has started so far into the weighted cgroup, until a listing finds none
// left out: what a moved process forks is born inside.
func (t *Tree) moveWeighted() error {
	if err := t.cg.moveWeighted(t.pid); err != nil {
		return err
	}
	moved := map[int]bool{t.pid: true}
	for range 100 {
		more := false
		for _, pid := range t.members(false) {
			if moved[pid] {
				continue
			}
			if err := t.cg.moveWeighted(pid); err != nil && !errors.Is(err, unix.ESRCH) {
				return err
			}
			moved[pid], more = true, true
		}
		if !more {
			return nil
		}
	}
	return errors.New("the run's processes kept forking while corepin moved them into the cpu cgroup")
}

// weigh settles what makes the priority a reads back act, and gives the
// run's cgroup the weight of a's nice value where autogroup would keep the
// nice value to its session; move puts the work into the weighted cgroup
// (nil without a cgroup). A failure is no error of the run: the report
// says the priority acts only within its session, and why.
func (t *Tree) weigh(a sched.Attr, move func() error) {
	enabled, _ := Autogroup(t.root)
	weighted, scope := priorityScope(a, enabled)
	t.rep.PriorityScope = scope
	if !weighted {
		return
	}
	if t.cg == nil {
		t.rep.PriorityNote = "no cpu cgroup: the run has no cgroup (" + t.rep.NoCgroup + ")"
		return
	}
	w, err := t.cg.weigh(a.Nice)
	if err == nil {
		err = move()
	}
	if err != nil {
		t.cg.dropWeighted()
		t.rep.PriorityNote = "no cpu cgroup: " + err.Error()
		return
	}
	t.rep.PriorityScope, t.rep.Cgroup = scopeWeight(w), t.cg.SortedDirs()
	t.guard.Cgroup(t.cg.Version, t.cg.Name, t.cg.Dirs) // with the cpu hierarchy's directory
}

// Members lists the run's live processes other than the command itself:
// the cgroup's, the command's descendants, and the orphans corepin
// inherited from it. The watcher follows them.
func (t *Tree) Members() []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.members(false)
}

// members lists the live processes of the run; withRoot includes the
// command when it still runs. It walks down from every process known to
// be the run's (see roots), through the children of each.
func (t *Tree) members(withRoot bool) []int {
	queue, inside, before := t.roots()
	var out []int
	done := map[int]bool{}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if done[pid] || pid <= 0 {
			continue
		}
		done[pid] = true
		if !t.admit(pid, inside, before) {
			continue
		}
		if pid != t.pid || withRoot {
			out = append(out, pid)
		}
		queue = append(queue, t.children(pid)...)
	}
	return out
}

// roots are where the walk of the run's processes starts: the cgroup's
// processes, the command, corepin's children that are the run's (in its
// process group, or inherited orphans already seen), and the processes
// seen before that still live; the ones gone, or whose PID another took,
// are forgotten. inside is the set of the cgroup's accounted processes,
// nil without a cgroup; before is the CPU time (ticks) of each process
// seen before, read before that listing, so that one the listing finds
// inside was inside at that reading.
func (t *Tree) roots() (queue []int, inside map[int]bool, before map[int]uint64) {
	before = map[int]uint64{}
	for pid, start := range t.seen {
		if st, ok := t.stat(pid); ok && st.StartTime == start {
			queue = append(queue, pid)
			before[pid] = st.UTime + st.STime
		} else {
			delete(t.seen, pid) // gone, or its PID given to another
			delete(t.lastIn, pid)
		}
	}
	if t.cg != nil {
		queue = append(queue, t.cg.procs()...)
		inside = map[int]bool{}
		for _, pid := range t.cg.accounted() {
			inside[pid] = true
		}
	}
	queue = append(queue, t.pid)
	for _, c := range t.ownChildren() {
		if st, ok := t.stat(c); ok && (st.PGrp == t.pid || t.seen[c] == st.StartTime) {
			queue = append(queue, c)
		}
	}
	return queue, inside, before
}

// admit says whether pid is a live process of the run, and records it:
// seen with its start time, and followed where it left the cgroup.
func (t *Tree) admit(pid int, inside map[int]bool, before map[int]uint64) bool {
	if pid == os.Getpid() {
		return false // corepin's starting thread is in the cgroup while it forks the command
	}
	st, ok := t.stat(pid)
	if !ok || st.State == 'X' {
		return false
	}
	if st.State == 'Z' {
		t.noteExited(pid, st)
		return false
	}
	if start, known := t.seen[pid]; known && start != st.StartTime {
		return false // the PID was reused by a process that is not the run's
	}
	t.seen[pid] = st.StartTime
	t.ever[pid] = true
	// A process missing from the listing may have been forked since it
	// was read: its own /proc/PID/cgroup, read after its stat, says where
	// it is. A move out comes after the last reading known to be inside:
	// the one before the listing, or this one when its cgroup file says.
	switch {
	case inside == nil:
	case inside[pid]:
		if cpu, ok := before[pid]; ok {
			t.lastIn[pid] = cpu
		}
	case t.cg.holds(t.root, pid):
		t.lastIn[pid] = st.UTime + st.STime
	default:
		t.noteOutside(pid, st)
	}
	return true
}

// noteExited reads once more a process of the run that left its cgroup
// and has exited, before it is reaped: its CPU time since the last look.
func (t *Tree) noteExited(pid int, st procfs.TaskStat) {
	if o, known := t.outside[pid]; known && o.start == st.StartTime {
		t.noteOutside(pid, st)
	}
}

// noteOutside keeps the CPU time of a process of the run outside its
// cgroup, from its first sight there and from its last sight inside, and
// where it ran last.
func (t *Tree) noteOutside(pid int, st procfs.TaskStat) {
	if t.outside == nil {
		t.outside = map[int]outsider{}
	}
	o, known := t.outside[pid]
	if !known || o.start != st.StartTime {
		if known {
			t.outsideGone = append(t.outsideGone, o) // its PID went to another process that left
		}
		o = outsider{start: st.StartTime, first: st.UTime + st.STime, from: t.lastIn[pid]}
		delete(t.lastIn, pid)
	}
	o.last, o.cpu = st.UTime+st.STime, st.Processor
	t.outside[pid] = o
}

func (t *Tree) stat(pid int) (procfs.TaskStat, bool) {
	st, err := procfs.ReadTaskStat(t.root, pid)
	return st, err == nil
}

// children lists the children of every thread of pid.
func (t *Tree) children(pid int) []int {
	tids, err := procfs.Tasks(t.root, pid)
	if err != nil {
		return nil
	}
	var out []int
	for _, tid := range tids {
		c, _ := procfs.Children(t.root, pid, tid)
		out = append(out, c...)
	}
	return out
}

// ownChildren lists the children of corepin's own threads that can be
// the run's: those of its main thread, to which the kernel gives the
// orphans of a subreaper (the first of its threads that is not exiting,
// and Go never ends the main thread), and those of the thread that forked
// the command (where kernels before 4.1 gave them). Reading every
// thread's children file instead would leave a /proc entry of each of
// corepin's threads for the kernel to flush when corepin is reaped, which
// cost the reaping parent milliseconds on a busy machine.
func (t *Tree) ownChildren() []int {
	self := os.Getpid()
	out, _ := procfs.Children(t.root, self, self)
	if t.forker != 0 && t.forker != self {
		more, _ := procfs.Children(t.root, self, t.forker)
		out = append(out, more...)
	}
	return out
}

// Signal sends sig to the process group, the cgroup and every process of
// the run found.
func (t *Tree) Signal(sig unix.Signal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.signalLocked(sig, t.members(true))
}

// LastSent is the last signal corepin sent the tree (a kill timer may
// still be sending one).
func (t *Tree) LastSent() unix.Signal {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sent
}

func (t *Tree) signalLocked(sig unix.Signal, pids []int) {
	t.sent = sig
	if t.pid > 0 {
		unix.Kill(-t.pid, sig)
	}
	if t.cg != nil {
		if sig == unix.SIGKILL {
			t.cg.Kill()
		} else {
			t.cg.Signal(sig)
		}
	}
	for _, pid := range pids {
		unix.Kill(pid, sig)
	}
}

// End ends whatever of the run still runs, the command included: SIGTERM,
// then SIGKILL for what is left after grace. It returns once nothing of
// the run runs (or, for what escaped, after a last second), reaping the
// orphans corepin inherited as they go.
func (t *Tree) End(grace time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	live := t.members(true)
	if len(live) == 0 {
		t.reapOrphans()
		return
	}
	for _, pid := range live {
		t.ended[pid] = true
	}
	t.rep.Ended, t.rep.EndedCommand = len(t.ended), t.ended[t.pid]
	t.signalLocked(unix.SIGTERM, live)
	if !t.waitGone(grace) {
		t.signalLocked(unix.SIGKILL, t.members(true))
		t.waitGone(time.Second)
	}
	left := t.members(true)
	t.rep.Left = len(left)
	t.reapOrphans()
}

// waitGone polls until nothing of the run runs, for at most d.
func (t *Tree) waitGone(d time.Duration) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(2 * time.Millisecond) {
		t.reapOrphans()
		live := t.members(true)
		for _, pid := range live {
			if !t.ended[pid] {
				t.ended[pid] = true // born during the end
				t.rep.Ended = len(t.ended)
			}
		}
		if len(live) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// reapOrphans collects the orphans of the run that corepin inherited and
// that have ended. The command itself is left to its exec.Cmd.
func (t *Tree) reapOrphans() {
	for _, c := range t.ownChildren() {
		if c == t.pid {
			continue
		}
		st, ok := t.stat(c)
		if !ok || st.State != 'Z' {
			continue
		}
		if st.PGrp == t.pid || t.seen[c] == st.StartTime {
			t.noteExited(c, st)
			if cpu, ok := reap(c); ok {
				t.rep.ReapedCPUS += cpu.Seconds()
			}
		}
	}
}

// Account fills in the cgroup's CPU account of the whole tree, and reads
// the target's busy time once more: the tree has ended, so the window
// between the two readings holds all of its time.
//
// The tracer's snapshot comes first, as before the fork: it reads the
// run time of the task on each target CPU, which brings the kernel's
// account of it up to date (the cpuacct figures of a running task lag up
// to a tick), so that the reading after it holds that task's time too.
func (t *Tree) Account() {
	t.trace.End()
	if t.haveBusy {
		t.after, t.haveBusy = t.meter.Read()
	}
	t.mu.Lock()
	for _, o := range append(slices.Collect(maps.Values(t.outside)), t.outsideGone...) {
		t.rep.LeftCgroup++
		s := float64(o.last-o.first) / procfs.UserHZ
		t.rep.LeftCgroupCPUS += s
		t.rep.LeftCgroupCPUMaxS += float64(o.last-o.from) / procfs.UserHZ
		if t.meter.CPUs().Contains(o.cpu) {
			t.rep.LeftCgroupOnTargetS += s
		}
	}
	t.mu.Unlock()
	if t.cg == nil {
		return
	}
	if u, ok := t.cg.Usage(); ok {
		s := u.Seconds()
		t.rep.CPUSeconds = &s
	}
	if per := t.cg.UsagePerCPU(); per != nil {
		t.rep.PerCPUSeconds = map[int]float64{}
		for cpu, d := range per {
			if d > 0 {
				t.rep.PerCPUSeconds[cpu] = d.Seconds()
			}
		}
	}
}

// Close takes the terminal back and removes the run's cgroup; the tree
// must have been ended.
func (t *Tree) Close() {
	t.meter.Close()
	if t.takeBack != nil {
		t.takeBack()
	}
	if t.pid > 0 {
		// The command is reaped: the group's ID may go to another process.
		t.guard.Ungroup(t.pid)
	}
	if t.cg == nil {
		return
	}
	t.rep.Swept = t.cg.swept()
	err := t.cg.Remove()
	if err != nil {
		t.addError(err.Error())
	}
	t.rep.CgroupRemoved = err == nil
}

func (t *Tree) addError(e string) {
	t.rep.Errors = append(t.rep.Errors, e)
}

// LeftTarget notes, on the thread that forks the command, that it has
// left the target: its time there since the first reading was corepin's
// own.
func (t *Tree) LeftTarget() {
	if !t.wentOff {
		t.ownTo, t.wentOff = busy.ThreadCPU(), true
	}
}

// ownOnTarget is the forking thread's time on the target after the first
// reading, outside the work's account; 0 where it is the work's or the
// thread never said it left.
func (t *Tree) ownOnTarget() time.Duration {
	if t.ownInWork || !t.wentOff {
		return 0
	}
	return max(0, t.ownTo-t.ownFrom)
}

// readBefore takes the readings of the target just before the fork, on
// the thread that forks.
func (t *Tree) readBefore() {
	t.forker = unix.Gettid()
	t.trace = StartTrace(t.tracer)
	// The cgroup's account just before the target's: the starting
	// thread's time between them is a file read.
	if t.cg != nil {
		t.cgBefore = &account.CgroupAccount{PerCPU: t.cg.UsagePerCPU()}
		t.cgBefore.Total, t.cgBefore.OK = t.cg.Usage()
	}
	t.before, t.haveBusy = t.meter.Read()
	t.ownFrom = t.before.Self // this thread's CPU time at the reading
}

// Preemptors names who else ran on the target during the run: the
// tracer's account between the two snapshots, less the run's own
// processes; or says why it cannot ("" without a tracer).
func (t *Tree) Preemptors(target cpuset.Set) ([]evidence.Preemptor, string) {
	ours := t.ours()
	return t.trace.Preemptors(target, func(pid, _ int) bool { return ours[pid] })
}

// ours is the run's processes: the command and every process seen in its
// tree.
func (t *Tree) ours() map[int]bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ours := map[int]bool{t.pid: true}
	for pid := range t.ever {
		ours[pid] = true
	}
	return ours
}

// Switches is who ran on the target during the run, slice by slice: the
// run's processes and the thread that forked the command are the work's,
// as in the cgroup's account of the others' time. nil without the tracer
// or the readings of the target, whose window the slices are of.
func (t *Tree) Switches() ([]evidence.Slice, *evidence.Switches) {
	if !t.haveBusy {
		return nil, nil
	}
	ours := t.ours()
	return t.trace.Switches(t.before.At, t.after.At, func(pid, tid int) bool { return ours[pid] || tid == t.forker })
}

// Others is the others' time on the target during the run of a command:
// the tree's readings, less the tree's own time there (the judge's
// OthersOfTree); nil without both readings.
func (t *Tree) Others(s *evidence.Scheduling, cpus cpuset.Set) *evidence.Others {
	if !t.haveBusy {
		return nil
	}
	return account.OthersOfTree(s, cpus, account.TreeWindow{Before: t.before, After: t.after, CgroupBefore: t.cgBefore, Own: t.ownOnTarget()})
}

// Exited is closed when the command has exited, not yet reaped.
func (t *Tree) Exited() <-chan struct{} { return t.exited }

// ExitAt is when the command exited (CLOCK_MONOTONIC), once Exited is
// closed.
func (t *Tree) ExitAt() time.Duration { return t.exitAt }

// monotonic is CLOCK_MONOTONIC, which the launcher and the tracer share.
func monotonic() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}
