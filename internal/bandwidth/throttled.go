package bandwidth

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
)

// Throttling is how long CFS bandwidth control had held back each cpu
// cgroup a task runs in, and its ancestors, at one moment: cpu.stat's
// throttled_time (v1, ns) or throttled_usec (v2), by directory. A quota
// anywhere above a task stops it as surely as one on its own cgroup, so
// every level is read. The figure is the cgroup's, summed over every CPU
// where it was held back, not the target's alone.
type Throttling map[string]time.Duration

// ReadThrottling reads the throttled time of the cpu cgroups of task
// ("self", a PID, "self/task/TID") and of every ancestor under root. It
// fails where there is no cpu controller the task is under.
func ReadThrottling(root fsroot.Root, task string) (Throttling, error) {
	mounts, err := cgroupfs.ReadMounts(root)
	if err != nil {
		return nil, err
	}
	own, err := cgroupfs.ReadProcCgroup(root, task)
	if err != nil {
		return nil, err
	}
	m, path, key := cgroupfs.Mount{}, "", "throttled_time"
	if v1, ok := cgroupfs.V1(mounts, "cpu"); ok {
		m, path = v1, own["cpu"]
	} else if v2, ok := cgroupfs.V2(mounts); ok {
		m, path, key = v2, own[""], "throttled_usec"
	} else {
		return nil, ErrUnavailable
	}
	dir := cgroupfs.HierarchyDir(m, path)
	if dir == "" {
		return nil, fmt.Errorf("%s's cpu cgroup %s is not under the mount %s", task, path, m.Dir)
	}
	t := Throttling{}
	for {
		if d, ok := throttledIn(root, dir, key); ok {
			t[dir] = d
		}
		if dir == m.Dir || len(dir) <= len(m.Dir) {
			break
		}
		dir = filepath.Dir(dir)
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("no cpu.stat with %s under %s", key, m.Dir)
	}
	return t, nil
}

// Throttled is how long the kernel has held the limit's cgroup back so
// far, over all its CPUs: what says that the quota acted.
func (l *Limit) Throttled() (time.Duration, error) {
	key := "throttled_time"
	if l.v2 {
		key = "throttled_usec"
	}
	data, err := os.ReadFile(filepath.Join(l.dir, "cpu.stat"))
	if err != nil {
		return 0, fmt.Errorf("reading the limit's cpu.stat: %w", err)
	}
	d, ok := ParseThrottled(data, key)
	if !ok {
		return 0, fmt.Errorf("the limit's cpu.stat has no %s", key)
	}
	return d, nil
}

// throttledIn reads the throttled time of one cgroup's cpu.stat.
func throttledIn(root fsroot.Root, dir, key string) (time.Duration, bool) {
	data, err := root.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return 0, false
	}
	return ParseThrottled(data, key)
}

// ParseThrottled finds key (throttled_time, in ns, or throttled_usec) in
// the text of a cpu.stat.
func ParseThrottled(data []byte, key string) (time.Duration, bool) {
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		k, v, ok := bytes.Cut(s.Bytes(), []byte(" "))
		if !ok || string(k) != key {
			continue
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 63)
		if err != nil {
			return 0, false
		}
		if key == "throttled_usec" {
			return time.Duration(n) * time.Microsecond, true
		}
		return time.Duration(n), true
	}
	return 0, false
}

// Since is the most that any one of the cgroups was held back between the
// earlier reading and t, and which cgroup that was; 0 and "" when none
// was, or the two readings share no cgroup (the task moved).
func (t Throttling) Since(earlier Throttling) (time.Duration, string) {
	var most time.Duration
	var where string
	for dir, d := range t {
		before, ok := earlier[dir]
		if !ok || d <= before {
			continue
		}
		if d-before > most || (d-before == most && dir > where) {
			most, where = d-before, dir
		}
	}
	return most, where
}
