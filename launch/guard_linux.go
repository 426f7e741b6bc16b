package launch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/system"
	"corepin.dev/corepin/topology"
)

// The guard finishes what a corepin that is killed (SIGKILL, the OOM
// killer, a crash) cannot: its run's tree would go on at nice -20 on the
// target, inside cgroups named for a dead PID, perhaps frozen, and the
// machine would stay tuned. It is corepin re-executed (GuardArg), started
// before the first such change, off the target and at guardNice, and it
// blocks on a pipe from corepin, costing nothing while corepin lives.
// corepin tells it, one line at a time (see guardMsg), what to clean as it makes
// it: the run cgroups, the process group, the journal of a tune, the
// results folder. A normal end says "done" and the guard exits; end of
// file without it means corepin died, and the guard cleans up and says
// so on stderr and in the run's results.
//
// The write end is close-on-exec, so no command corepin starts holds it:
// the guard sees end of file when corepin's own process ends.

// guardFD is the pipe in the guard: the first of exec.Cmd.ExtraFiles.
const guardFD = 3

// guarding is this process's side of its guard.
var guarding struct {
	sync.Mutex
	enabled bool
	w       *os.File
	err     error // why there is no guard
	// started is closed once the guard's process has started, or failed
	// to (err): its pipe takes messages before then.
	started chan struct{}
}

// EnableGuard makes this process start a guard before its first change
// that would outlive it (a run's cgroup, a tune): corepin's command does,
// a library that runs work need not. DismissGuard ends it.
func EnableGuard() {
	guarding.Lock()
	guarding.enabled = true
	guarding.Unlock()
}

// DismissGuard tells the guard that corepin ends normally, having put
// everything back itself; the guard exits. It returns why there was no
// guard, when one was needed and could not be started.
func DismissGuard() error {
	guardReady()
	guarding.Lock()
	defer guarding.Unlock()
	if guarding.w != nil {
		writeGuard(guardMsg{Done: true})
		guarding.w.Close()
		guarding.w = nil
	}
	guarding.enabled = false
	return guarding.err
}

// GuardTune starts the guard, off the CPUs target, before a tune of the
// machine under root whose journal is journal ("" for the default), and
// tells it to put the machine back if corepin dies.
func GuardTune(target cpuset.Set, root fsroot.Root, journal string) {
	guardSend(target, guardMsg{Journal: &guardTune{Root: string(root), Journal: journal}})
	guardReady()
}

// GuardResults tells the guard where the run's results folders are made
// (results.Create's base), so that it records there what it did.
func GuardResults(target cpuset.Set, dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	guardSend(target, guardMsg{Results: dir})
}

// guardSend starts the guard if guarding is enabled and it is not running
// yet, and sends it m. The guard's process starts on a thread of its own:
// what must not happen without it waits for guardReady.
func guardSend(target cpuset.Set, m guardMsg) {
	guarding.Lock()
	defer guarding.Unlock()
	if !guarding.enabled || guarding.err != nil {
		return
	}
	if guarding.w == nil {
		if guarding.w, guarding.err = startGuard(target); guarding.err != nil {
			return
		}
	}
	writeGuard(m)
}

// guardReady waits until the guard's process has started, or failed to
// start, if one is starting. A run's command starts after it, a tune's
// first write too.
func guardReady() {
	guarding.Lock()
	started := guarding.started
	guarding.Unlock()
	if started != nil {
		<-started
	}
}

// writeGuard writes m as one line, in one write: a pipe keeps a write of
// less than PIPE_BUF whole, so a corepin killed while writing leaves no
// half line. A guard that has died gives EPIPE, which is ignored.
func writeGuard(m guardMsg) {
	if m == (guardMsg{}) {
		return // only starting the guard
	}
	guarding.w.Write(m.line())
}

// guardCgroupOf is what the guard needs of cg.
func guardCgroupOf(cg *cgroup) guardMsg {
	dirs := map[string]string{}
	for k, v := range cg.Dirs {
		dirs[k] = v
	}
	return guardMsg{Cgroup: &guardCgroup{Version: cg.Version, Name: cg.Name, Dirs: dirs}}
}

// guardNice is the guard's nice value until corepin dies, where it may go
// back to nice 0 then (root, or a large RLIMIT_NICE; elsewhere it starts
// at corepin's). Its start (the Go runtime and corepin's packages, about a
// millisecond of CPU) comes while corepin sets up the command, on the CPUs
// corepin keeps to: at nice 0 it took half of them, and corepin exec took
// 2.36 times as long as taskset and chrt, against 2.10 at nice 19. Asleep
// on its pipe it costs nothing at any nice value.
const guardNice = 19

// startGuard starts the guard and returns the write end of its pipe at
// once; the process starts meanwhile, and closes guarding.started when it
// has (guardReady), so that corepin makes the run's cgroups and sets up
// the command's thread beside its start (0.3 ms of corepin exec's). It
// starts from a thread of its own whose mask leaves out the target (and
// its SMT siblings where another core is allowed) and whose nice value is
// guardNice, so that every thread of the guard is born there: the thread
// that happens to fork may be a session's, at nice -20 on the target.
// Called with guarding locked.
func startGuard(target cpuset.Set) (*os.File, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting corepin's guard: %w", err)
	}
	st, ok := readTaskStat(fsroot.Host, os.Getpid())
	if !ok {
		return nil, errors.New("starting corepin's guard: cannot read corepin's own start time")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting corepin's guard: %w", err)
	}
	cmd := exec.Command(self, GuardArg, strconv.Itoa(os.Getpid()), strconv.FormatUint(st.StartTime, 10))
	cmd.ExtraFiles = []*os.File{r}
	cmd.Stderr = os.Stderr
	// One P is plenty for a process that reads a pipe; a process group of
	// its own keeps a terminal's Ctrl-C, meant for corepin, from it.
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	started := make(chan struct{})
	guarding.started = started
	go func() {
		defer close(started)
		err := startOff(cmd, target)
		r.Close()
		if err == nil {
			return
		}
		guarding.Lock()
		defer guarding.Unlock()
		if guarding.w == w { // not dismissed meanwhile
			w.Close()
			guarding.w = nil
		}
		guarding.err = fmt.Errorf("starting corepin's guard: %w", err)
	}()
	return w, nil
}

// startOff starts cmd from a throwaway thread off the target, at
// guardNice.
func startOff(cmd *exec.Cmd, target cpuset.Set) error {
	done := sched.Throwaway()
	defer done()
	if mask, err := sched.GetAffinity(0); err == nil && !target.IsEmpty() {
		core, _ := topology.CoreSiblings("/", target)
		if off, _, err := sched.OffCPUs(mask, target, core); err == nil {
			sched.SetAffinity(0, off)
		}
	}
	// A throwaway thread may try: one that may lower its nice value may
	// lower the guard's again. One that may not is left as it is (a
	// refused request changes nothing), and so is the guard.
	if now, err := sched.GetNice(0); err == nil && sched.SetNice(0, now-1) == nil {
		sched.SetNice(0, guardNice)
	}
	return cmd.Start()
}

// guardMain is the guard: args are the guarded corepin's PID and start
// time (clock ticks since boot).
func guardMain(args []string) int {
	// Only corepin's end ends the guard: the signals meant for corepin
	// (a terminal's, a supervisor's) must not take the cleanup with them.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "corepin %s: want the guarded PID and its start time\n", GuardArg)
		return 2
	}
	pid, err1 := strconv.Atoi(args[0])
	start, err2 := strconv.ParseUint(args[1], 10, 64)
	if err1 != nil || err2 != nil {
		fmt.Fprintf(os.Stderr, "corepin %s: bad arguments %q\n", GuardArg, args)
		return 2
	}
	g := &guardState{owner: system.Owner{PID: pid, Start: start}, cgroups: map[string]guardCgroup{}, groups: map[int]uint64{}, since: startedAt(start)}
	if g.read(os.NewFile(guardFD, "corepin-guard"), os.Stderr) {
		return 0 // corepin ended normally
	}
	// The cleanup runs at nice 0: at guardNice it would wait behind every
	// busy process on its CPUs. The guard leads a process group of its
	// own, so the group's priority is every one of its threads'.
	unix.Setpriority(unix.PRIO_PGRP, 0, 0)
	g.cleanUp(os.Stderr)
	return 0
}

// startedAt is when a process that started at start (clock ticks since
// boot) started; now where the boot time cannot be read. The guard's own
// start is no bound: at nice 19 on a busy machine it came more than a
// second after corepin had written its run.json.
func startedAt(start uint64) time.Time {
	boot, err := procfs.BootTime(fsroot.Host)
	if err != nil {
		return time.Now()
	}
	return procfs.Started(boot, start)
}

// guardState is what the guard was told to clean.
type guardState struct {
	owner   system.Owner
	cgroups map[string]guardCgroup
	groups  map[int]uint64 // PGID: the leader's start time
	tunes   []guardTune
	results string
	since   time.Time // when the guarded corepin started: older results are not its run's
}

// read takes in what corepin says on its pipe until it says it is done
// (true) or its end closes the pipe (false). Only end of file means
// corepin has ended: a line of any length is read whole, and a last piece
// without its newline is a write that corepin's end cut short (a line can
// be longer than PIPE_BUF), not a message. A line it cannot read is said
// on w and skipped.
func (g *guardState) read(pipe io.Reader, w io.Writer) bool {
	r := bufio.NewReader(pipe)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return false
		}
		m, err := parseGuardLine(strings.TrimSuffix(line, "\n"))
		switch {
		case err != nil:
			fmt.Fprintf(w, "corepin %s: %v\n", GuardArg, err)
		case m.Done:
			return true
		default:
			g.note(m)
		}
	}
}

func (g *guardState) note(m guardMsg) {
	if c := m.Cgroup; c != nil {
		g.cgroups[c.Name] = *c
	}
	if m.Group != nil {
		g.groups[m.Group.PGID] = m.Group.Start
	}
	if m.Ungroup != 0 {
		delete(g.groups, m.Ungroup)
	}
	if m.Journal != nil && !slices.Contains(g.tunes, *m.Journal) {
		g.tunes = append(g.tunes, *m.Journal)
	}
	if m.Results != "" {
		g.results = m.Results
	}
}

// cleanUp ends the run's tree, removes its cgroups, puts the machine back
// and says what it did. The tree goes first: it is what runs on the
// target at nice -20.
func (g *guardState) cleanUp(w io.Writer) {
	var did, failed []string
	ended := 0
	var names []string
	for _, name := range sortedKeys(g.cgroups) {
		c := g.cgroups[name]
		cg := cgroupfs.Found(c.Version, c.Name, c.Dirs)
		if !cg.Exists() {
			continue // corepin removed it
		}
		n, err := cg.End()
		ended += n
		names = append(names, name)
		if err != nil {
			failed = append(failed, err.Error())
		}
	}
	for pgid, start := range g.groups {
		ended += endGroup(pgid, start)
	}
	if len(names) > 0 || ended > 0 {
		did = append(did, endedRun(ended, names))
	}
	for _, t := range g.tunes {
		// corepin's own layer alone, by its PID and start time: another
		// corepin's, or a system tune that stands until reset, is not the
		// guard's to put back.
		m := &system.Machine{Root: fsroot.Root(t.Root), Journal: t.Journal}
		rep, err := m.ResetOwner(context.Background(), g.owner)
		switch {
		case err != nil:
			failed = append(failed, "putting the machine back: "+err.Error())
		case rep != nil && len(rep.Restored)+len(rep.Kept) > 0:
			s := fmt.Sprintf("put the machine's tuning back (%d values)", len(rep.Restored))
			if len(rep.Kept) > 0 {
				s += fmt.Sprintf(", leaving %d that another corepin's tune relies on", len(rep.Kept))
			}
			did = append(did, s)
		}
	}
	if len(did) == 0 && len(failed) == 0 {
		// corepin had put everything back, or changed nothing: its run, if
		// it was writing one, is still settled from its journal.
		if g.results != "" {
			if err := g.record(""); err != nil {
				fmt.Fprintf(w, "corepin: guard: settling the results: %v\n", err)
			}
		}
		return
	}
	msg := fmt.Sprintf("corepin (pid %d) ended without finishing; its guard %s", g.owner.PID, strings.Join(did, ", "))
	if len(did) == 0 {
		msg = fmt.Sprintf("corepin (pid %d) ended without finishing", g.owner.PID)
	}
	if len(failed) > 0 {
		msg += "; it could not: " + strings.Join(failed, "; ")
	}
	fmt.Fprintf(w, "corepin: %s\n", msg)
	if g.results != "" {
		if err := g.record(msg); err != nil {
			fmt.Fprintf(w, "corepin: guard: recording this in the results: %v\n", err)
		}
	}
}

// endedRun says what the guard did with the run's tree and cgroups, never
// "ended 0 processes": a tree that had ended leaves only its cgroups.
func endedRun(ended int, cgroups []string) string {
	var parts []string
	if ended > 0 {
		parts = append(parts, "ended "+processes(ended)+" of its run")
	}
	if len(cgroups) > 0 {
		parts = append(parts, "removed its run's cgroups ("+strings.Join(cgroups, ", ")+")")
	}
	return strings.Join(parts, " and ")
}

// endGroup kills what is left of a run's process group and returns how
// many processes it held. The kernel gives no process a PID that is still
// a group's ID, so a leader that runs with another start time means the
// run's group ended and its ID went to another.
func endGroup(pgid int, start uint64) int {
	if st, ok := readTaskStat(fsroot.Host, pgid); ok && st.StartTime != start && st.State != 'Z' {
		return 0
	}
	n := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readTaskStat(fsroot.Host, pid); ok && st.PGrp == pgid && st.State != 'Z' {
			n++
		}
	}
	if n > 0 {
		unix.Kill(-pgid, unix.SIGKILL)
	}
	return n
}

// record waits until corepin is gone, as a reader of its results must
// (a writer that is still there is not known to have crashed), and
// records msg there.
func (g *guardState) record(msg string) error {
	for deadline := time.Now().Add(10 * time.Second); g.owner.Alive(fsroot.Host) && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	return results.RecordGuarded(g.results, g.owner.PID, g.owner.Start, g.since, msg)
}
