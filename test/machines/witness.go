package main

// The witnesses the checks compare corepin with: the kernel's own files
// read directly, and util-linux's tools (lscpu, taskset, chrt, uclampset).
// Nothing here uses corepin's packages, so a bug there cannot hide itself.

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// cpuList is a sorted set of CPU numbers.
type cpuList []int

// parseList reads the kernel's list format ("0,2-3"); "" and "(null)"
// are empty.
func parseList(s string) (cpuList, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "(null)" {
		return nil, nil
	}
	var out cpuList
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("bad CPU list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU list %q", s)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	sort.Ints(out)
	return out, nil
}

// parseHexMask reads taskset's hex mask ("c0").
func parseHexMask(s string) (cpuList, error) {
	n, ok := new(big.Int).SetString(strings.ReplaceAll(strings.TrimSpace(s), ",", ""), 16)
	if !ok {
		return nil, fmt.Errorf("bad mask %q", s)
	}
	var out cpuList
	for i := 0; i < n.BitLen(); i++ {
		if n.Bit(i) == 1 {
			out = append(out, i)
		}
	}
	return out, nil
}

func (l cpuList) String() string {
	if len(l) == 0 {
		return "none"
	}
	var parts []string
	for i := 0; i < len(l); {
		j := i
		for j+1 < len(l) && l[j+1] == l[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", l[i], l[j]))
		} else {
			parts = append(parts, strconv.Itoa(l[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func (l cpuList) has(c int) bool {
	for _, x := range l {
		if x == c {
			return true
		}
	}
	return false
}

func (l cpuList) equal(m cpuList) bool { return l.String() == m.String() }

func (l cpuList) intersects(m cpuList) bool {
	for _, c := range l {
		if m.has(c) {
			return true
		}
	}
	return false
}

func (l cpuList) minus(m cpuList) cpuList {
	var out cpuList
	for _, c := range l {
		if !m.has(c) {
			out = append(out, c)
		}
	}
	return out
}

// sysfs reads a file under /sys/devices/system/cpu, trimmed; ok is false
// when it is missing.
func sysCPU(rel string) (string, bool) {
	data, err := os.ReadFile(filepath.Join("/sys/devices/system/cpu", rel))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(data)), true
}

func sysList(rel string) cpuList {
	s, _ := sysCPU(rel)
	l, _ := parseList(s)
	return l
}

// siblingsOf is the kernel's list of the hardware threads of cpu's core.
func siblingsOf(cpu int) cpuList {
	if s, ok := sysCPU(fmt.Sprintf("cpu%d/topology/thread_siblings_list", cpu)); ok {
		l, _ := parseList(s)
		return l
	}
	return cpuList{cpu}
}

// statusField returns a field of /proc/PID/task/TID/status.
func statusField(path, field string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// taskMasks maps each thread of pid to its Cpus_allowed_list.
func taskMasks(pid int) map[int]cpuList {
	out := map[int]cpuList{}
	dirs, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	for _, d := range dirs {
		tid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if l, err := parseList(statusField(filepath.Join(d, "status"), "Cpus_allowed_list")); err == nil {
			out[tid] = l
		}
	}
	return out
}

// statFields returns the fields of /proc/PID/stat after the command name.
func statFields(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(data[i+1:]))
}

// statNice is field 19 of /proc/PID/stat; statCPU field 39 (where the task
// last ran).
func statNice(pid int) (int, bool) { return statInt(pid, 19) }
func statCPU(pid int) (int, bool)  { return statInt(pid, 39) }

func statInt(pid, field int) (int, bool) {
	f := statFields(pid)
	if len(f) < field-2 {
		return 0, false
	}
	n, err := strconv.Atoi(f[field-3]) // f[0] is field 3 (state)
	return n, err == nil
}

// tool runs a witness tool and returns its output, trimmed.
func tool(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return strings.TrimSpace(string(out)), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return strings.TrimSpace(string(out)), nil
}

// tasksetMask is taskset -p's view of pid's mask.
func tasksetMask(ctx context.Context, pid int) (cpuList, error) {
	out, err := tool(ctx, "taskset", "-p", strconv.Itoa(pid))
	if err != nil {
		return nil, err
	}
	_, hex, ok := strings.Cut(out, "affinity mask:")
	if !ok {
		return nil, fmt.Errorf("taskset -p %d: unexpected output %q", pid, out)
	}
	return parseHexMask(hex)
}

// chrtPolicy is chrt -p's policy name for pid, lower case without SCHED_
// ("other", "fifo"), and its priority.
func chrtPolicy(ctx context.Context, pid int) (string, int, error) {
	out, err := tool(ctx, "chrt", "-p", strconv.Itoa(pid))
	if err != nil {
		return "", 0, err
	}
	policy, prio := "", 0
	for _, line := range strings.Split(out, "\n") {
		if _, v, ok := strings.Cut(line, "scheduling policy:"); ok {
			policy = strings.ToLower(strings.TrimPrefix(strings.Fields(v)[0], "SCHED_"))
		}
		if _, v, ok := strings.Cut(line, "scheduling priority:"); ok {
			prio, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if policy == "" {
		return "", 0, fmt.Errorf("chrt -p %d: unexpected output %q", pid, out)
	}
	return policy, prio, nil
}

// lscpuRow is one line of lscpu -p.
type lscpuRow struct {
	cpu, core, socket, node int // -1 where lscpu printed nothing
	online                  bool
}

// lscpuRows runs lscpu -p for every CPU, online or not.
func lscpuRows(ctx context.Context) (map[int]lscpuRow, error) {
	out, err := tool(ctx, "lscpu", "-p=CPU,CORE,SOCKET,NODE,ONLINE", "--all")
	if err != nil {
		return nil, err
	}
	rows := map[int]lscpuRow{}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) < 5 {
			return nil, fmt.Errorf("lscpu -p: unexpected line %q", line)
		}
		num := func(s string) int {
			n, err := strconv.Atoi(s)
			if err != nil {
				return -1
			}
			return n
		}
		r := lscpuRow{cpu: num(f[0]), core: num(f[1]), socket: num(f[2]), node: num(f[3]), online: f[4] == "Y"}
		rows[r.cpu] = r
	}
	return rows, nil
}

// lscpuModel is lscpu's "Model name".
func lscpuModel(ctx context.Context) string {
	out, err := tool(ctx, "lscpu")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Model name:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// setOnline takes cpu offline or brings it back, inside the guest.
func setOnline(cpu int, on bool) error {
	v := "0"
	if on {
		v = "1"
	}
	return os.WriteFile(fmt.Sprintf("/sys/devices/system/cpu/cpu%d/online", cpu), []byte(v), 0o644)
}

// waitFile waits until path exists and returns its content.
func waitFile(ctx context.Context, path string, limit time.Duration) (string, error) {
	deadline := time.Now().Add(limit)
	for {
		if data, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(data)) > 0 {
			return strings.TrimSpace(string(data)), nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%s did not appear within %v", path, limit)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
