// Package bandwidth limits threads of corepin to a share of one CPU with
// CFS bandwidth control: a cgroup whose quota of CPU time per period the
// kernel enforces exactly, which no competing process does. corepin uses
// it to emulate a slow core (the partition experiment) and its tests to
// slow the speed witness's probe by a known factor.
//
// Only cgroup v1's cpu controller moves one thread on its own (its tasks
// file takes a TID); cgroup v2 moves single threads only inside a
// threaded subtree, so there Limit moves the whole process (cgroup.procs)
// and says so.
package bandwidth

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
)

// ErrUnavailable is returned where there is no cpu controller corepin can
// use.
var ErrUnavailable = errors.New("no CFS bandwidth control: no cgroup v1 cpu hierarchy with cpu.cfs_quota_us, and no cgroup v2 root that offers cpu")

// Limit is a cgroup with a CPU bandwidth limit and the threads moved into
// it. Remove moves them back and removes the cgroup.
type Limit struct {
	g     *cgroupfs.Group
	h     *cgroupfs.Hierarchies
	mount cgroupfs.Mount // the cpu controller's hierarchy
	ctl   string         // the group's directory's key: "cpu" (v1) or "" (v2)
	dir   string
	v2    bool
	// period is the limit's period, in microseconds.
	period int
	mu     sync.Mutex
	moved  []moved
}

type moved struct {
	id   int    // TID (v1) or PID (v2)
	back string // the cgroup file that puts it back
}

// New makes a cgroup at the top of the cpu controller's hierarchy (v1's,
// or v2's root where it offers cpu) whose members may use quota of every
// period microseconds of CPU time (quota < 0: no limit), the whole of it
// shared by all members. It first removes the empty bandwidth cgroups
// that corepins killed before their Remove left behind.
func New(quota, period int) (*Limit, error) {
	h, err := cgroupfs.Find(fsroot.Host)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrUnavailable, err)
	}
	l := &Limit{h: h, period: period}
	parent := cgroupfs.Parent{Version: 1}
	if m, ok := h.V1("cpu"); ok && exists(filepath.Join(m.Dir, "cpu.cfs_quota_us")) {
		l.mount, l.ctl = m, "cpu"
	} else if m, ok := h.V2(); ok && hasCPU(h, m.Dir) {
		l.mount, l.ctl, l.v2, parent.Version = m, "", true, 2
	} else {
		return nil, ErrUnavailable
	}
	parent.Dirs = map[string]string{l.ctl: l.mount.Dir}
	cgroupfs.SweepEmpty(fsroot.Host, l.mount.Dir, cgroupfs.SelfMark().Namespace)
	l.g, err = cgroupfs.Make(parent, cgroupfs.NewName(cgroupfs.Bandwidth), cgroupfs.Limits{Quota: &cgroupfs.Quota{US: quota, PeriodUS: period}})
	if err != nil {
		return nil, err
	}
	l.dir = l.g.Dirs[l.ctl]
	return l, nil
}

// Set changes the quota (microseconds per period; < 0: no limit).
func (l *Limit) Set(quota int) error {
	return l.g.SetQuota(cgroupfs.Quota{US: quota, PeriodUS: l.period})
}

// MaxWeight gives the cgroup the largest CPU weight the kernel allows
// (v1 cpu.shares 262144, v2 cpu.weight 10000): against tasks at nice 0
// elsewhere it then has nearly all of a CPU it is on, so that what limits
// it is its quota and not whoever else runs there.
func (l *Limit) MaxWeight() error {
	_, err := l.g.SetWeight(1 << 18)
	return err
}

// AddThread moves the thread tid of this process into the cgroup (on
// cgroup v2: the whole process, which V2 reports).
func (l *Limit) AddThread(tid int) error {
	if l.v2 {
		return l.AddProcess(os.Getpid())
	}
	back, err := l.h.TaskDir(l.mount, fmt.Sprintf("self/task/%d", tid))
	if err != nil {
		return err
	}
	if err := l.g.AddThread(l.ctl, tid); err != nil {
		return fmt.Errorf("moving thread %d into the bandwidth cgroup: %w", tid, err)
	}
	l.remember(moved{id: tid, back: filepath.Join(back, "tasks")})
	return nil
}

func (l *Limit) remember(m moved) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.moved = append(l.moved, m)
}

// AddProcess moves every thread of process pid into the cgroup.
func (l *Limit) AddProcess(pid int) error {
	back, err := l.h.TaskDir(l.mount, strconv.Itoa(pid))
	if err != nil {
		return err
	}
	if err := l.g.AddProcess(l.ctl, pid); err != nil {
		return fmt.Errorf("moving process %d into the bandwidth cgroup: %w", pid, err)
	}
	l.remember(moved{id: pid, back: filepath.Join(back, "cgroup.procs")})
	return nil
}

// V2 reports whether the limit is a cgroup v2 one, where a thread moves
// with its whole process.
func (l *Limit) V2() bool { return l.v2 }

// Remove puts every member back where it was, in reverse order, and
// removes the cgroup; the first failure is returned. A thread that ended
// in the cgroup is no longer listed in it and is left alone: its number
// may be another thread's by now, which corepin must not move.
func (l *Limit) Remove() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	in, first := l.members()
	for i := len(l.moved) - 1; in != nil && i >= 0; i-- {
		m := l.moved[i]
		if !in[m.id] {
			continue
		}
		// ESRCH: it ended since it was listed.
		err := cgroupfs.Write(m.back, strconv.Itoa(m.id))
		if err != nil && first == nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, unix.ESRCH) {
			first = fmt.Errorf("moving %d back to %s: %w", m.id, m.back, err)
		}
	}
	l.moved = nil
	if err := l.g.Remove(); err != nil && first == nil {
		first = err
	}
	return first
}

// members are the TIDs and PIDs the cgroup lists now.
func (l *Limit) members() (map[int]bool, error) {
	in, err := l.g.Members(l.ctl)
	if err != nil {
		return nil, fmt.Errorf("reading the bandwidth cgroup's members: %w", err)
	}
	return in, nil
}

// hasCPU says whether the v2 cgroup dir offers its children the cpu
// controller.
func hasCPU(h *cgroupfs.Hierarchies, dir string) bool {
	ok, err := h.Delegated(dir, "cpu")
	return err == nil && ok
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
