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
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
)

// V1Root and V2Root are where the cpu controller is mounted on the
// machines corepin knows.
const (
	V1Root = "/sys/fs/cgroup/cpu"
	V2Root = "/sys/fs/cgroup"
)

// ErrUnavailable is returned where there is no cpu controller corepin can
// use.
var ErrUnavailable = errors.New("no CFS bandwidth control: no cgroup v1 cpu controller at " + V1Root + " and no cgroup v2 cpu controller at " + V2Root)

// Limit is a cgroup with a CPU bandwidth limit and the threads moved into
// it. Remove moves them back and removes the cgroup.
type Limit struct {
	dir    string
	v2     bool
	period int // microseconds
	mu     sync.Mutex
	moved  []moved
}

type moved struct {
	id   int    // TID (v1) or PID (v2)
	back string // the cgroup file that puts it back
}

// New makes a cgroup whose members may use quota of every period
// microseconds of CPU time (quota < 0: no limit), the whole of it
// shared by all members. It first removes the empty bandwidth cgroups
// that corepins killed before their Remove left behind.
func New(quota, period int) (*Limit, error) {
	name := cgroupfs.NewBandwidthName()
	l := &Limit{period: period}
	switch {
	case exists(filepath.Join(V1Root, "cpu.cfs_quota_us")):
		l.dir = filepath.Join(V1Root, name)
	case hasV2CPU():
		l.dir, l.v2 = filepath.Join(V2Root, name), true
	default:
		return nil, ErrUnavailable
	}
	sweep(filepath.Dir(l.dir))
	if err := os.Mkdir(l.dir, 0o755); err != nil {
		return nil, fmt.Errorf("making the bandwidth cgroup: %w", err)
	}
	if err := l.Set(quota); err != nil {
		os.Remove(l.dir)
		return nil, err
	}
	return l, nil
}

// Set changes the quota (microseconds per period; < 0: no limit).
func (l *Limit) Set(quota int) error {
	if l.v2 {
		q := "max"
		if quota >= 0 {
			q = strconv.Itoa(quota)
		}
		return write(filepath.Join(l.dir, "cpu.max"), q+" "+strconv.Itoa(l.period))
	}
	// The period first: a quota is checked against the period in force.
	if err := write(filepath.Join(l.dir, "cpu.cfs_period_us"), strconv.Itoa(l.period)); err != nil {
		return err
	}
	return write(filepath.Join(l.dir, "cpu.cfs_quota_us"), strconv.Itoa(quota))
}

// MaxWeight gives the cgroup the largest CPU weight the kernel allows
// (v1 cpu.shares 262144, v2 cpu.weight 10000): against tasks at nice 0
// elsewhere it then has nearly all of a CPU it is on, so that what limits
// it is its quota and not whoever else runs there.
func (l *Limit) MaxWeight() error {
	if l.v2 {
		return write(filepath.Join(l.dir, "cpu.weight"), "10000")
	}
	return write(filepath.Join(l.dir, "cpu.shares"), "262144")
}

// AddThread moves the thread tid of this process into the cgroup (on
// cgroup v2: the whole process, which V2 reports).
func (l *Limit) AddThread(tid int) error {
	if l.v2 {
		return l.AddProcess(os.Getpid())
	}
	back, err := ownCgroup(fmt.Sprintf("self/task/%d", tid), false)
	if err != nil {
		return err
	}
	if err := write(filepath.Join(l.dir, "tasks"), strconv.Itoa(tid)); err != nil {
		return err
	}
	l.remember(moved{id: tid, back: filepath.Join(V1Root, back, "tasks")})
	return nil
}

func (l *Limit) remember(m moved) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.moved = append(l.moved, m)
}

// AddProcess moves every thread of process pid into the cgroup.
func (l *Limit) AddProcess(pid int) error {
	back, err := ownCgroup(strconv.Itoa(pid), l.v2)
	if err != nil {
		return err
	}
	root := V1Root
	if l.v2 {
		root = V2Root
	}
	if err := write(filepath.Join(l.dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
		return err
	}
	l.remember(moved{id: pid, back: filepath.Join(root, back, "cgroup.procs")})
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
		err := write(m.back, strconv.Itoa(m.id))
		if err != nil && first == nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, unix.ESRCH) {
			first = err
		}
	}
	l.moved = nil
	if err := os.Remove(l.dir); err != nil && first == nil {
		first = fmt.Errorf("removing the bandwidth cgroup: %w", err)
	}
	return first
}

// members are the TIDs and PIDs the cgroup lists now.
func (l *Limit) members() (map[int]bool, error) {
	threads := "tasks"
	if l.v2 {
		threads = "cgroup.threads"
	}
	in := map[int]bool{}
	for _, f := range []string{threads, "cgroup.procs"} {
		ids, err := cgroupfs.IDs(filepath.Join(l.dir, f))
		if err != nil {
			return nil, fmt.Errorf("reading the bandwidth cgroup's members: %w", err)
		}
		for _, id := range ids {
			in[id] = true
		}
	}
	return in, nil
}

// sweep removes the bandwidth cgroups in parent whose corepin no longer
// runs: it was killed before its Remove. Only a cgroup marked for a
// corepin of this PID namespace that is certainly gone is removed
// (cgroupfs.OwnerGone), and rmdir refuses a cgroup that still has a task,
// so nothing that runs is touched.
func sweep(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	ns := cgroupfs.SelfMark().Namespace
	for _, e := range entries {
		if m, ok := cgroupfs.ParseBandwidthName(e.Name()); ok && e.IsDir() && cgroupfs.OwnerGone(fsroot.Host, m, ns) {
			os.Remove(filepath.Join(parent, e.Name()))
		}
	}
}

// ownCgroup reads the cpu controller's path (v1) or the unified path
// (v2) from a /proc cgroup file (self/task/TID or PID).
func ownCgroup(task string, v2 bool) (string, error) {
	own, err := cgroupfs.ReadProcCgroup(fsroot.Host, task)
	if err != nil {
		return "", err
	}
	ctl := "cpu"
	if v2 {
		ctl = ""
	}
	path, ok := own[ctl]
	if !ok {
		return "", fmt.Errorf("/proc/%s/cgroup: no cpu controller line", task)
	}
	return path, nil
}

func containsCPU(controllers string) bool {
	for c := range strings.SplitSeq(controllers, ",") {
		if c == "cpu" {
			return true
		}
	}
	return false
}

func hasV2CPU() bool {
	data, err := os.ReadFile(filepath.Join(V2Root, "cgroup.subtree_control"))
	return err == nil && containsCPU(strings.ReplaceAll(strings.TrimSpace(string(data)), " ", ","))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func write(path, value string) error {
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		return fmt.Errorf("writing %q to %s: %w", value, path, err)
	}
	return nil
}
