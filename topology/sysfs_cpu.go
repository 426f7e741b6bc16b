package topology

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
)

const (
	cpuDir  = "sys/devices/system/cpu"
	nodeDir = "sys/devices/system/node"
)

// readGlobal reads the machine-wide CPU lists and the process's own mask.
func (t *Topology) readGlobal(f *reader) error {
	var err error
	read := func(name string) cpuset.Set {
		if err != nil {
			return cpuset.Set{}
		}
		p := cpuDir + "/" + name
		text, ok, rerr := f.readString(p)
		// Kernels before 4.x print "(null)" in nohz_full when the
		// feature is configured but no CPU uses it.
		if !ok || rerr != nil || text == "(null)" {
			err = rerr
			return cpuset.Set{}
		}
		s, perr := cpuset.Parse(text)
		if perr != nil {
			err = &FileError{Path: f.Path(p), Err: perr}
		}
		return s
	}
	t.Possible = read("possible")
	t.Present = read("present")
	t.Online = read("online")
	t.Isolated = read("isolated")
	t.NohzFull = read("nohz_full")
	if err != nil {
		return err
	}
	if f.Root == "/" {
		allowed, err := readAllowed(f)
		if err != nil {
			return err
		}
		t.Allowed = allowed
		if t.Cpuset, t.CpusetFile, err = readCpuset(f); err != nil {
			return err
		}
	}
	return nil
}

// readCpuset reads the effective CPUs of this process's cpuset: its
// cgroup in the hierarchy with the cpuset controller (cgroupfs), under
// cgroup v2 (cpuset.cpus.effective) or v1 (cpuset.effective_cpus, then
// cpuset.cpus). Nothing found is no error: the cpuset is unknown.
func readCpuset(f *reader) (*cpuset.Set, string, error) {
	h, err := cgroupfs.Find(f.Root)
	if err != nil {
		return nil, "", nil
	}
	m, err := h.Cpuset()
	dir := h.OwnDir(m)
	if err != nil || dir == "" {
		return nil, "", nil
	}
	files := []string{"cpuset.effective_cpus", "cpuset.cpus"}
	if m.Version == 2 {
		files = []string{"cpuset.cpus.effective"}
	}
	for _, file := range files {
		p := strings.TrimPrefix(filepath.Join(dir, file), "/")
		s, ok, err := f.readList(p)
		if err != nil {
			return nil, "", err
		}
		if ok && !s.IsEmpty() {
			return &s, f.Path(p), nil
		}
	}
	return nil, "", nil
}

// readAllowed reads Cpus_allowed_list from proc/self/status.
func readAllowed(f *reader) (*cpuset.Set, error) {
	s, ok, err := f.readString("proc/self/status")
	if !ok || err != nil {
		return nil, err
	}
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			set, err := cpuset.Parse(v)
			if err != nil {
				return nil, &FileError{Path: f.Path("proc/self/status"), Err: err}
			}
			return &set, nil
		}
	}
	return nil, nil
}

// readCPUs reads every cpuN directory.
func (t *Topology) readCPUs(f *reader) error {
	ids, err := f.numbered(cpuDir, "cpu")
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return fmt.Errorf("%w: no cpuN directory in %s", ErrNotSysfs, f.Path(cpuDir))
	}
	// Nodes are read for selection too: a soft target keeps to one.
	nodes, err := readNodes(f)
	if err != nil {
		return err
	}
	models := map[int]string{}
	if f.full {
		if models, err = readCPUInfo(f); err != nil {
			return err
		}
	}
	pmuKinds, err := readPMUKinds(f)
	if err != nil {
		return err
	}
	if t.Present.IsEmpty() {
		t.Present = cpuset.Of(ids...)
	}
	cpus, err := readCPUsOf(f, ids)
	if err != nil {
		return err
	}
	for _, c := range cpus {
		c.Online = t.isOnline(f, c.ID)
		if n, ok := nodes[c.ID]; ok {
			c.Node = &n
		}
		c.Model = models[c.ID]
		if k, ok := pmuKinds[c.ID]; ok {
			c.Kind, c.KindSource = k, "pmu"
		}
		c.Isolated = t.Isolated.Contains(c.ID)
		c.NohzFull = t.NohzFull.Contains(c.ID)
		t.CPUs = append(t.CPUs, c)
	}
	// The machine's model; a big.LITTLE machine has several, named in the
	// order of their first CPU ("Cortex-A510 + Cortex-A715 + Cortex-X3").
	var names []string
	for _, c := range t.CPUs {
		if c.Model != "" && !slices.Contains(names, c.Model) {
			names = append(names, c.Model)
		}
	}
	t.Model = strings.Join(names, " + ")
	if !t.Online.IsEmpty() {
		return nil
	}
	// Very old kernels have no cpu/online list: gather it from the CPUs.
	var online []int
	for _, c := range t.CPUs {
		if c.Online {
			online = append(online, c.ID)
		}
	}
	t.Online = cpuset.Of(online...)
	return nil
}

// isOnline decides whether a CPU is online: by the machine-wide list where
// there is one, else by the CPU's own online file. cpu0 often has no online
// file because it cannot be unplugged; it is online then.
func (t *Topology) isOnline(f *reader, id int) bool {
	if !t.Online.IsEmpty() {
		return t.Online.Contains(id)
	}
	n, err := f.readInt(fmt.Sprintf("%s/cpu%d/online", cpuDir, id))
	if err != nil || n == nil {
		return true
	}
	return *n == 1
}

// readCPU reads one CPU's topology, frequency limits, capacity and caches.
func readCPU(f *reader, id int) (evidence.CPU, error) {
	c := evidence.CPU{ID: id}
	dir := fmt.Sprintf("%s/cpu%d", cpuDir, id)
	var err error
	if c.Package, err = readID(f, dir+"/topology/physical_package_id"); err != nil {
		return c, err
	}
	if c.Die, err = readID(f, dir+"/topology/die_id"); err != nil {
		return c, err
	}
	if c.CoreID, err = readID(f, dir+"/topology/core_id"); err != nil {
		return c, err
	}
	sib, ok, err := f.readListOrMask(dir+"/topology/core_cpus_list", dir+"/topology/core_cpus")
	if err == nil && !ok {
		sib, ok, err = f.readListOrMask(dir+"/topology/thread_siblings_list", dir+"/topology/thread_siblings")
	}
	if err != nil {
		return c, err
	}
	if ok {
		c.Siblings = sib
	}
	// A cluster is what the kernel calls one (cluster_cpus); kernels and
	// platforms without it still group CPUs by frequency domain.
	cl, ok, err := f.readListOrMask(dir+"/topology/cluster_cpus_list", dir+"/topology/cluster_cpus")
	if err != nil {
		return c, err
	}
	if !ok {
		cl, ok = relatedCPUs(f, id)
	}
	if ok {
		f.setCluster(id, cl)
	}
	if c.MaxMHz, c.MinMHz, err = readFreqLimits(f, id); err != nil {
		return c, err
	}
	if c.Capacity, err = f.readInt(dir + "/cpu_capacity"); err != nil {
		return c, err
	}
	if c.HighestPerf, err = f.readInt(dir + "/acpi_cppc/highest_perf"); err != nil {
		return c, err
	}
	if f.full {
		if c.L2, c.L3, err = readCaches(f, dir); err != nil {
			return c, err
		}
	}
	return c, nil
}

// parallelFrom is the number of CPUs from which their directories are read
// by several goroutines: on a server each CPU costs about ten small reads,
// and a launch waits for all of them.
const parallelFrom = 16

// readCPUsOf reads the cpuN directories of ids, in that order. On machines
// with many CPUs the reads are spread over a few goroutines; the first
// error, by CPU order, is returned.
func readCPUsOf(f *reader, ids []int) ([]evidence.CPU, error) {
	cpus := make([]evidence.CPU, len(ids))
	if len(ids) < parallelFrom { // on the caller's goroutine: no thread to wake
		for i, id := range ids {
			var err error
			if cpus[i], err = readCPU(f, id); err != nil {
				return nil, err
			}
		}
		return cpus, nil
	}
	errs := make([]error, len(ids))
	workers := min(runtime.GOMAXPROCS(0), 8)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(ids); i = int(next.Add(1) - 1) {
				cpus[i], errs[i] = readCPU(f, ids[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return cpus, nil
}

// readID reads a topology id; -1 means the platform does not know it.
func readID(f *reader, p string) (*int, error) {
	n, err := f.readInt(p)
	if n != nil && *n < 0 {
		return nil, err
	}
	return n, err
}

// readFreqLimits reads cpuinfo_max_freq and cpuinfo_min_freq (kHz) from the
// CPU's cpufreq directory: cpuN/cpufreq is a directory on old kernels, a
// link to ../cpufreq/policyN or to another CPU's directory on others; where
// it is missing, the policy whose related_cpus holds the CPU is used.
func readFreqLimits(f *reader, id int) (max, min *float64, err error) {
	dir := fmt.Sprintf("%s/cpu%d/cpufreq", cpuDir, id)
	if !f.linkInside(dir) {
		return nil, nil, nil
	}
	khz := func(dir, name string) (*float64, error) {
		n, err := f.readInt(dir + "/" + name)
		if n == nil || err != nil || *n <= 0 {
			return nil, err
		}
		mhz := float64(*n) / 1000
		return &mhz, nil
	}
	max, err = khz(dir, "cpuinfo_max_freq")
	if err == nil && max == nil {
		if dir, err = policyDirOf(f, id); err != nil || dir == "" {
			return nil, nil, err
		}
		max, err = khz(dir, "cpuinfo_max_freq")
	}
	if err != nil {
		return nil, nil, err
	}
	if min, err = khz(dir, "cpuinfo_min_freq"); err != nil {
		return nil, nil, err
	}
	return max, min, nil
}

// policyDirOf finds the cpufreq policy directory that governs a CPU.
func policyDirOf(f *reader, id int) (string, error) {
	policies, err := f.numbered(cpuDir+"/cpufreq", "policy")
	if err != nil {
		return "", err
	}
	for _, p := range policies {
		dir := fmt.Sprintf("%s/cpufreq/policy%d", cpuDir, p)
		related, ok, err := f.readList(dir + "/related_cpus")
		if err != nil {
			return "", err
		}
		if !ok {
			related, _, err = f.readList(dir + "/affected_cpus")
			if err != nil {
				return "", err
			}
		}
		if related.Contains(id) {
			return dir, nil
		}
	}
	return "", nil
}

// relatedCPUs returns the CPUs that share a CPU's frequency policy.
func relatedCPUs(f *reader, id int) (cpuset.Set, bool) {
	if f.linkInside(fmt.Sprintf("%s/cpu%d/cpufreq", cpuDir, id)) {
		s, ok, err := f.readList(fmt.Sprintf("%s/cpu%d/cpufreq/related_cpus", cpuDir, id))
		if ok && err == nil {
			return s, true
		}
	}
	dir, err := policyDirOf(f, id)
	if err != nil || dir == "" {
		return cpuset.Set{}, false
	}
	s, ok, err := f.readList(dir + "/related_cpus")
	return s, ok && err == nil
}

// readCaches returns the CPUs that share this CPU's unified L2 and L3.
func readCaches(f *reader, dir string) (l2, l3 *cpuset.Set, err error) {
	indexes, err := f.numbered(dir+"/cache", "index")
	if err != nil {
		return nil, nil, err
	}
	for _, i := range indexes {
		idx := fmt.Sprintf("%s/cache/index%d", dir, i)
		level, err := f.readInt(idx + "/level")
		if err != nil {
			return nil, nil, err
		}
		typ, _, err := f.readString(idx + "/type")
		if err != nil {
			return nil, nil, err
		}
		if level == nil || typ == "Instruction" || typ == "Data" {
			continue
		}
		shared, ok, err := f.readListOrMask(idx+"/shared_cpu_list", idx+"/shared_cpu_map")
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		switch *level {
		case 2:
			l2 = &shared
		case 3:
			l3 = &shared
		}
	}
	return l2, l3, nil
}

// readNodes maps each CPU to its NUMA node from node/nodeN/cpulist (or
// cpumap). A node with an empty map holds no CPU.
func readNodes(f *reader) (map[int]int, error) {
	ids, err := f.numbered(nodeDir, "node")
	if err != nil {
		return nil, err
	}
	out := make(map[int]int)
	for _, n := range ids {
		dir := fmt.Sprintf("%s/node%d", nodeDir, n)
		cpus, _, err := f.readListOrMask(dir+"/cpulist", dir+"/cpumap")
		if err != nil {
			return nil, err
		}
		for _, c := range cpus.CPUs() {
			out[c] = n
		}
	}
	return out, nil
}

// readPMUKinds reads Intel's hybrid PMU lists: cpu_core/cpus holds the
// performance cores, cpu_atom/cpus the efficiency cores.
func readPMUKinds(f *reader) (map[int]string, error) {
	out := make(map[int]string)
	for _, pmu := range []struct{ dir, kind string }{
		{"sys/devices/cpu_core/cpus", KindPerformance},
		{"sys/devices/cpu_atom/cpus", KindEfficiency},
	} {
		cpus, _, err := f.readList(pmu.dir)
		if err != nil {
			return nil, err
		}
		for _, c := range cpus.CPUs() {
			out[c] = pmu.kind
		}
	}
	return out, nil
}

// readCPUInfo maps each processor in /proc/cpuinfo (as internal/procfs
// reads it) to its model name. The key differs by architecture: "model
// name" on x86, "cpu" on PowerPC and SPARC, "Model Name" on LoongArch;
// ARM has only the implementer and part numbers, which armModel decodes
// as lscpu does.
func readCPUInfo(f *reader) (map[int]string, error) {
	out := make(map[int]string)
	info, err := procfs.ReadCPUInfo(f.Root)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe) && pe.Op == "open":
		return out, nil // unknown, not an error: many dumps lack it
	case errors.As(err, &pe):
		return nil, &FileError{Path: pe.Path, Err: pe.Err}
	case err != nil:
		return nil, err
	}
	for id, fields := range info {
		if name, ok := info.Value(id, "model name", "Model Name", "cpu model", "cpu"); ok {
			out[id] = name
			continue
		}
		implementer, part, arm := -1, -1, false
		for _, fl := range fields {
			if fl.Key != "CPU implementer" && fl.Key != "CPU part" {
				continue
			}
			n, err := strconv.ParseInt(fl.Value, 0, 32)
			if err != nil {
				continue
			}
			arm = true
			if fl.Key == "CPU part" {
				part = int(n)
			} else {
				implementer = int(n)
			}
		}
		if arm {
			if name := armModel(implementer, part); name != "" {
				out[id] = name
			}
		}
	}
	return out, nil
}
