package cgroupfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// Write writes one value to a cgroup file, as one write: the kernel takes
// a cgroup file's value from a single write, and its error (EBUSY,
// EINVAL, ESRCH) comes back from it.
func Write(path, value string) error {
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

// WriteReadInt writes v to a cgroup file and reads back what the kernel
// kept.
func WriteReadInt(path string, v int) (int, error) {
	if err := Write(path, strconv.Itoa(v)); err != nil {
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

// confine writes the CPUs to a cpuset cgroup's file (cpuset.cpus) and
// reads back the ones in force (cpuset.cpus.effective on v2,
// cpuset.effective_cpus on v1), which must be exactly cpus. what names
// the cgroup in an error ("the run's").
func confine(dir, file, effective string, cpus cpuset.Set, what string) (cpuset.Set, error) {
	if err := Write(filepath.Join(dir, file), cpus.String()); err != nil {
		return cpuset.Set{}, fmt.Errorf("confining %s cgroup to %s: %w", what, cpus, err)
	}
	data, err := fsroot.ReadFile(filepath.Join(dir, effective))
	if err != nil {
		return cpuset.Set{}, fmt.Errorf("reading back %s cgroup CPUs: %w", what, err)
	}
	got, err := cpuset.Parse(strings.TrimSpace(string(data)))
	if err != nil {
		return cpuset.Set{}, fmt.Errorf("reading back %s cgroup CPUs: %w", what, err)
	}
	if !got.Equal(cpus) {
		return cpuset.Set{}, fmt.Errorf("%s cgroup reads back CPUs %s, not %s", what, got, cpus)
	}
	return got, nil
}

// Subtree lists the controllers the v2 cgroup dir under root lets its
// children have (cgroup.subtree_control).
func Subtree(root fsroot.Root, dir string) ([]string, error) {
	data, err := root.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(data)), nil
}

// Enable lets the children of the v2 cgroup dir have the controller ctl;
// Disable takes it back.
func Enable(dir, ctl string) error {
	return Write(filepath.Join(dir, "cgroup.subtree_control"), "+"+ctl)
}

// Disable takes the controller ctl from the children of the v2 cgroup
// dir.
func Disable(dir, ctl string) error {
	return Write(filepath.Join(dir, "cgroup.subtree_control"), "-"+ctl)
}

// IDs reads a list of task or process IDs (tasks, cgroup.procs,
// cgroup.threads).
func IDs(path string) ([]int, error) {
	data, err := fsroot.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if id, err := strconv.Atoi(f); err == nil {
			out = append(out, id)
		}
	}
	return out, nil
}

// Procs reads the cgroup.procs of a cgroup directory and of every cgroup
// nested in it: a command may make cgroups of its own inside the run's
// and move its processes there, and they are still the run's.
func Procs(dir string) []int {
	pids, err := IDs(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	for _, sub := range Nested(dir) {
		pids = append(pids, Procs(sub)...)
	}
	return pids
}

// Nested lists the cgroups directly inside dir.
func Nested(dir string) []string {
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

// Kill ends every process of a v2 cgroup and the cgroups in it at once,
// through cgroup.kill (Linux 5.14).
func Kill(dir string) error { return Write(filepath.Join(dir, "cgroup.kill"), "1") }

// Freeze freezes a v1 freezer cgroup and waits, a little, until it is.
// It reports false only when the freezer refused.
func Freeze(dir string) bool {
	state := filepath.Join(dir, "freezer.state")
	if Write(state, "FROZEN") != nil {
		return false
	}
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if data, err := fsroot.ReadFile(state); err == nil && strings.TrimSpace(string(data)) == "FROZEN" {
			return true
		}
	}
	return true // signals still reach the tasks that did freeze
}

// Thaw thaws a v1 freezer cgroup and every cgroup nested in it, which
// the command may have frozen itself: a frozen task does not act on
// SIGKILL until it is thawed.
func Thaw(dir string) {
	Write(filepath.Join(dir, "freezer.state"), "THAWED")
	for _, sub := range Nested(dir) {
		Thaw(sub)
	}
}

// UsageV2 is a v2 cgroup's CPU time so far (cpu.stat's usage_usec), over
// every process that was in it.
func UsageV2(dir string) (time.Duration, bool) {
	data, err := fsroot.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
			us, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Duration(us) * time.Microsecond, err == nil
		}
	}
	return 0, false
}

// UsageV1 is a v1 cpuacct cgroup's CPU time so far (cpuacct.usage).
func UsageV1(dir string) (time.Duration, bool) {
	data, err := fsroot.ReadFile(filepath.Join(dir, "cpuacct.usage"))
	if err != nil {
		return 0, false
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return time.Duration(ns), err == nil
}

// UsagePerCPU is a v1 cpuacct cgroup's CPU time per CPU
// (cpuacct.usage_percpu).
func UsagePerCPU(dir string) (map[int]time.Duration, error) {
	data, err := fsroot.ReadFile(filepath.Join(dir, "cpuacct.usage_percpu"))
	if err != nil {
		return nil, err
	}
	return ParseUsagePerCPU(data)
}

// ParseUsagePerCPU parses cpuacct.usage_percpu: nanoseconds, one number
// per possible CPU in order.
func ParseUsagePerCPU(data []byte) (map[int]time.Duration, error) {
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

// RemoveTree removes a cgroup directory and those nested in it, deepest
// first; one still busy with an exiting task is tried again for up to
// wait. A directory already gone is no error. A cgroup with a live task
// cannot be removed: the caller ends them first.
func RemoveTree(dir string, wait time.Duration) error {
	var first error
	for _, sub := range Nested(dir) {
		if err := RemoveTree(sub, wait); err != nil && first == nil {
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
