package guard

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cmd/corepin/internal/system"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results"
)

// Main is the guard, which corepin runs when its first argument is Arg:
// args are the rest, the guarded corepin's PID and start time (clock
// ticks since boot). It returns the guard's exit status.
func Main(args []string) int {
	// Only corepin's end ends the guard: the signals meant for corepin
	// (a terminal's, a supervisor's) must not take the cleanup with them.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "corepin %s: want the guarded PID and its start time\n", Arg)
		return 2
	}
	pid, err1 := strconv.Atoi(args[0])
	start, err2 := strconv.ParseUint(args[1], 10, 64)
	if err1 != nil || err2 != nil {
		fmt.Fprintf(os.Stderr, "corepin %s: bad arguments %q\n", Arg, args)
		return 2
	}
	g := &state{owner: system.Owner{PID: pid, Start: start}, cgroups: map[string]cgroupMsg{}, groups: map[int]uint64{}, since: startedAt(start)}
	if g.read(os.NewFile(fd, "corepin-guard"), os.Stderr) {
		return 0 // corepin ended normally
	}
	// The cleanup runs at nice 0: at nice it would wait behind every
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

// state is what the guard was told to clean.
type state struct {
	owner   system.Owner
	cgroups map[string]cgroupMsg
	groups  map[int]uint64 // PGID: the leader's start time
	tunes   []tuneMsg
	results string
	since   time.Time // when the guarded corepin started: older results are not its run's
}

// read takes in what corepin says on its pipe until it says it is done
// (true) or its end closes the pipe (false). Only end of file means
// corepin has ended: a line of any length is read whole, and a last piece
// without its newline is a write that corepin's end cut short (a line can
// be longer than PIPE_BUF), not a message. A line it cannot read is said
// on w and skipped.
func (g *state) read(pipe io.Reader, w io.Writer) bool {
	r := bufio.NewReader(pipe)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return false
		}
		m, err := parseLine(strings.TrimSuffix(line, "\n"))
		switch {
		case err != nil:
			fmt.Fprintf(w, "corepin %s: %v\n", Arg, err)
		case m.Done:
			return true
		default:
			g.note(m)
		}
	}
}

func (g *state) note(m msg) {
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
func (g *state) cleanUp(w io.Writer) {
	var did, failed []string
	ended := 0
	var names []string
	for _, name := range slices.Sorted(maps.Keys(g.cgroups)) {
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
	if st, err := procfs.ReadTaskStat(fsroot.Host, pgid); err == nil && st.StartTime != start && st.State != 'Z' {
		return 0
	}
	n := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := procfs.ReadTaskStat(fsroot.Host, pid); err == nil && st.PGrp == pgid && st.State != 'Z' {
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
func (g *state) record(msg string) error {
	for deadline := time.Now().Add(10 * time.Second); g.owner.Alive(fsroot.Host) && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	return results.RecordGuarded(g.results, g.owner.PID, g.owner.Start, g.since, msg)
}

// processes is "1 process", "3 processes".
func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}
