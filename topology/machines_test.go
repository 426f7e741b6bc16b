package topology

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/sysfstest"
)

var regen = flag.Bool("regen", false, "rewrite the synthetic machine trees under testdata/")

// machine describes a synthetic machine, modelled on a public spec sheet.
// The trees in testdata/ are written from these descriptions by
// `go test ./topology -run TestMachines -regen` and checked in as files.
type machine struct {
	name     string
	clusters []cluster
	offline  []int
	capacity bool // does the kernel export cpu_capacity (arm64 does)
	clusterF bool // does the kernel export topology/cluster_*
	cpufreq  bool
	pmu      bool // Intel hybrid: sys/devices/cpu_core and cpu_atom
	model    string
}

type cluster struct {
	cores    int
	smt      int
	capacity int
	maxKHz   int
	minKHz   int
	perf     []int  // acpi_cppc highest_perf per core, when set
	kind     string // pmu kind
}

var machines = []machine{
	{
		// A HarmonyOS phone (Huawei SGU-AL10): the super-big core has two
		// hardware threads, CPU12/13, at 2.75 GHz.
		name: "sgu-al10", capacity: true, cpufreq: true, model: "",
		clusters: []cluster{
			{cores: 4, smt: 1, capacity: 300, maxKHz: 1608000, minKHz: 400000},
			{cores: 4, smt: 2, capacity: 780, maxKHz: 2304000, minKHz: 600000},
			{cores: 1, smt: 2, capacity: 1024, maxKHz: 2750000, minKHz: 1000000},
		},
	},
	{
		// A 1+4+4 phone: four little, four middle, one prime core.
		name: "phone-1-4-4", capacity: true, clusterF: true, cpufreq: true,
		clusters: []cluster{
			{cores: 4, smt: 1, capacity: 300, maxKHz: 2000000, minKHz: 300000},
			{cores: 4, smt: 1, capacity: 850, maxKHz: 2850000, minKHz: 600000},
			{cores: 1, smt: 1, capacity: 1024, maxKHz: 3250000, minKHz: 700000},
		},
	},
	{
		// A 2+3+2+1 phone: the two middle clusters are the same
		// micro-architecture at different frequencies.
		name: "phone-2-3-2-1", capacity: true, cpufreq: true,
		clusters: []cluster{
			{cores: 2, smt: 1, capacity: 325, maxKHz: 2265600, minKHz: 384000},
			{cores: 3, smt: 1, capacity: 870, maxKHz: 3148800, minKHz: 499200},
			{cores: 2, smt: 1, capacity: 817, maxKHz: 2956800, minKHz: 499200},
			{cores: 1, smt: 1, capacity: 1024, maxKHz: 3302400, minKHz: 480000},
		},
	},
	{
		// An Intel hybrid laptop: 4 P-cores with SMT (one favoured core),
		// 8 E-cores in two modules, the last E-core offline.
		name: "intel-hybrid-4p8e", cpufreq: true, pmu: true, clusterF: true,
		model:   "12th Gen Intel(R) Core(TM) i7-1260P",
		offline: []int{15},
		clusters: []cluster{
			{cores: 4, smt: 2, maxKHz: 4700000, minKHz: 400000, perf: []int{68, 70, 68, 68}, kind: KindPerformance},
			{cores: 8, smt: 1, maxKHz: 3400000, minKHz: 400000, perf: []int{40, 40, 40, 40, 40, 40, 40, 40}, kind: KindEfficiency},
		},
	},
	{
		// This machine's shape: a 2-CPU VM without cpufreq.
		name: "vm-2cpu", capacity: true, clusterF: true, model: "AMD EPYC",
		clusters: []cluster{{cores: 2, smt: 1, capacity: 1024}},
	},
}

func (m machine) write(root string) error {
	files := map[string]string{}
	put := func(p, v string) { files[p] = v + "\n" }
	cpu := 0
	var all []int
	var pmu = map[string][]int{}
	for ci, cl := range m.clusters {
		clusterFirst := cpu
		clusterCPUs := cpuset.Range(cpu, cpu+cl.cores*cl.smt-1)
		for core := 0; core < cl.cores; core++ {
			sib := cpuset.Range(cpu, cpu+cl.smt-1)
			for th := 0; th < cl.smt; th++ {
				id := cpu + th
				all = append(all, id)
				d := fmt.Sprintf("sys/devices/system/cpu/cpu%d", id)
				if contains(m.offline, id) {
					put(d+"/online", "0")
					continue
				}
				if id != 0 {
					put(d+"/online", "1")
				}
				put(d+"/topology/physical_package_id", "0")
				put(d+"/topology/die_id", "0")
				put(d+"/topology/core_id", fmt.Sprint(core))
				put(d+"/topology/core_cpus_list", sib.String())
				put(d+"/topology/thread_siblings_list", sib.String())
				put(d+"/topology/thread_siblings", sib.Mask())
				if m.clusterF {
					put(d+"/topology/cluster_id", fmt.Sprint(ci))
					put(d+"/topology/cluster_cpus_list", clusterCPUs.String())
				}
				if m.capacity {
					put(d+"/cpu_capacity", fmt.Sprint(cl.capacity))
				}
				if cl.perf != nil {
					put(d+"/acpi_cppc/highest_perf", fmt.Sprint(cl.perf[core]))
				}
				put(d+"/cache/index2/level", "2")
				put(d+"/cache/index2/type", "Unified")
				put(d+"/cache/index2/shared_cpu_list", sib.String())
				put(d+"/cache/index3/level", "3")
				put(d+"/cache/index3/type", "Unified")
				put(d+"/cache/index3/shared_cpu_list", "0-"+fmt.Sprint(m.total()-1))
				if cl.kind != "" {
					pmu[cl.kind] = append(pmu[cl.kind], id)
				}
			}
			cpu += cl.smt
		}
		if m.cpufreq {
			p := fmt.Sprintf("sys/devices/system/cpu/cpufreq/policy%d", clusterFirst)
			put(p+"/related_cpus", clusterCPUs.String())
			put(p+"/affected_cpus", clusterCPUs.Difference(cpuset.Of(m.offline...)).String())
			put(p+"/cpuinfo_max_freq", fmt.Sprint(cl.maxKHz))
			put(p+"/cpuinfo_min_freq", fmt.Sprint(cl.minKHz))
			put(p+"/scaling_cur_freq", fmt.Sprint(cl.maxKHz))
		}
	}
	allSet := cpuset.Of(all...)
	online := allSet.Difference(cpuset.Of(m.offline...))
	put("sys/devices/system/cpu/possible", allSet.String())
	put("sys/devices/system/cpu/present", allSet.String())
	put("sys/devices/system/cpu/online", online.String())
	put("sys/devices/system/cpu/offline", cpuset.Of(m.offline...).String())
	put("sys/devices/system/cpu/isolated", "")
	put("sys/devices/system/node/node0/cpulist", online.String())
	if m.pmu {
		put("sys/devices/cpu_core/cpus", cpuset.Of(pmu[KindPerformance]...).String())
		put("sys/devices/cpu_atom/cpus", cpuset.Of(pmu[KindEfficiency]...).String())
	}
	var cpuinfo strings.Builder
	for _, id := range online.CPUs() {
		fmt.Fprintf(&cpuinfo, "processor\t: %d\n", id)
		if m.model != "" {
			fmt.Fprintf(&cpuinfo, "model name\t: %s\n", m.model)
		} else {
			fmt.Fprintf(&cpuinfo, "CPU implementer\t: 0x48\n")
		}
		cpuinfo.WriteString("\n")
	}
	files["proc/cpuinfo"] = cpuinfo.String()
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	for p, v := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(v), 0o644); err != nil {
			return err
		}
	}
	// Per-CPU cpufreq links, as modern kernels have them.
	if m.cpufreq {
		cpu := 0
		for _, cl := range m.clusters {
			first := cpu
			for i := 0; i < cl.cores*cl.smt; i++ {
				if !contains(m.offline, cpu) {
					link := filepath.Join(root, fmt.Sprintf("sys/devices/system/cpu/cpu%d/cpufreq", cpu))
					if err := os.Symlink(fmt.Sprintf("../cpufreq/policy%d", first), link); err != nil {
						return err
					}
				}
				cpu++
			}
		}
	}
	return nil
}

func (m machine) total() int {
	n := 0
	for _, c := range m.clusters {
		n += c.cores * c.smt
	}
	return n
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func machineRoot(name string) string { return filepath.Join("testdata", "machines", name) }

func readMachine(t *testing.T, name string) *Topology {
	t.Helper()
	topo, err := Read(fsroot.Root(machineRoot(name)))
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func TestMachines(t *testing.T) {
	if *regen {
		for _, m := range machines {
			if err := m.write(machineRoot(m.name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name    string
		groups  []string // CPUs of each group, fastest first
		kinds   []string
		exact   int
		soft    string
		hetero  bool
		derived bool
		offline []int
	}{
		{name: "sgu-al10", groups: []string{"12-13", "4-11", "0-3"}, kinds: []string{"performance", "balanced", "efficiency"},
			exact: 12, soft: "12-13", hetero: true},
		{name: "phone-1-4-4", groups: []string{"8", "4-7", "0-3"}, kinds: []string{"performance", "balanced", "efficiency"},
			exact: 8, soft: "8", hetero: true},
		{name: "phone-2-3-2-1", groups: []string{"7", "2-4", "5-6", "0-1"}, kinds: []string{"performance", "balanced", "balanced", "efficiency"},
			exact: 7, soft: "7", hetero: true},
		{name: "intel-hybrid-4p8e", groups: []string{"0-7", "8-14"}, kinds: []string{"performance", "efficiency"},
			exact: 2, soft: "0-7", hetero: true, derived: true, offline: []int{15}},
		{name: "vm-2cpu", groups: []string{"0-1"}, kinds: []string{""}, exact: 1, soft: "0-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			topo := readMachine(t, tt.name)
			if len(topo.Groups) != len(tt.groups) {
				t.Fatalf("%d groups %v, want %v", len(topo.Groups), groupCPUs(topo), tt.groups)
			}
			for i, g := range topo.Groups {
				if g.CPUs.String() != tt.groups[i] || g.Kind != tt.kinds[i] || g.Rank != i {
					t.Errorf("group %d = %s %q, want %s %q", i, g.CPUs, g.Kind, tt.groups[i], tt.kinds[i])
				}
				if g.CapacityDerived != tt.derived {
					t.Errorf("group %d capacity derived = %v, want %v", i, g.CapacityDerived, tt.derived)
				}
			}
			if topo.Heterogeneous != tt.hetero {
				t.Errorf("heterogeneous = %v, want %v", topo.Heterogeneous, tt.hetero)
			}
			target, err := topo.Select("prime")
			if err != nil {
				t.Fatal(err)
			}
			if target.ExactCPU != tt.exact || target.SoftCPUs.String() != tt.soft {
				t.Errorf("prime = %d / %s, want %d / %s (%s)", target.ExactCPU, target.SoftCPUs, tt.exact, tt.soft, target.Why)
			}
			for _, id := range tt.offline {
				c := topo.CPU(id)
				if c == nil || c.Online || topo.GroupOf(id) != nil {
					t.Errorf("CPU %d should be present, offline and in no group", id)
				}
				if _, err := topo.Select(fmt.Sprint(id)); err == nil || !strings.Contains(err.Error(), "offline") {
					t.Errorf("Select(%d) = %v, want an offline error", id, err)
				}
			}
		})
	}
}

func groupCPUs(t *Topology) []string {
	var out []string
	for _, g := range t.Groups {
		out = append(out, g.CPUs.String())
	}
	return out
}

func TestSMTCoresShareID(t *testing.T) {
	topo := readMachine(t, "sgu-al10")
	a, b := topo.CPU(12), topo.CPU(13)
	if *a.Core != *b.Core || !a.Siblings.Equal(cpuset.MustParse("12-13")) {
		t.Errorf("CPU12/13 are not one core: %v %v %s", *a.Core, *b.Core, a.Siblings)
	}
	if *topo.CPU(4).Core == *topo.CPU(6).Core {
		t.Error("CPU4 and CPU6 share a core id")
	}
	if *a.Cluster == *topo.CPU(11).Cluster {
		t.Error("the prime core shares a cluster with the middle cores")
	}
	if a.MaxMHz == nil || *a.MaxMHz != 2750 {
		t.Errorf("CPU12 max MHz = %v, want 2750", a.MaxMHz)
	}
}

func TestSelect(t *testing.T) {
	topo := readMachine(t, "sgu-al10")
	tests := []struct {
		spec  string
		exact int
		soft  string
		err   string
	}{
		{spec: "", exact: 12, soft: "12-13"},
		{spec: "big", exact: 12, soft: "12-13"},
		{spec: "little", exact: 3, soft: "0-3"},
		{spec: "group:1", exact: 10, soft: "4-11"},
		{spec: "5", exact: 5, soft: "5"},
		{spec: "4-7", exact: 6, soft: "4-7"},
		{spec: "14", err: "CPU 14 does not exist"},
		{spec: "group:3", err: "no such group"},
		{spec: "fastest", err: "unknown target"},
		{spec: "3-1", err: "unknown target"},
	}
	for _, tt := range tests {
		got, err := topo.Select(tt.spec)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Select(%q) error = %v, want %q", tt.spec, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Select(%q): %v", tt.spec, err)
			continue
		}
		if got.ExactCPU != tt.exact || got.SoftCPUs.String() != tt.soft || got.Why == "" {
			t.Errorf("Select(%q) = %d / %s (%q), want %d / %s", tt.spec, got.ExactCPU, got.SoftCPUs, got.Why, tt.exact, tt.soft)
		}
	}
}

func TestSelectRespectsAllowed(t *testing.T) {
	topo := readMachine(t, "sgu-al10")
	allowed := cpuset.MustParse("0-11")
	topo.Allowed = &allowed
	got, err := topo.Select("prime")
	if err != nil {
		t.Fatal(err)
	}
	if got.ExactCPU != 10 || got.SoftCPUs.String() != "4-11" {
		t.Errorf("prime under a 0-11 mask = %d / %s, want 10 / 4-11", got.ExactCPU, got.SoftCPUs)
	}
	// With no cpuset to say the mask may widen, the inherited mask is the
	// limit, and the refusal names it and its file.
	if _, err := topo.Select("12"); err == nil || !strings.Contains(err.Error(), "outside the mask this process inherited 0-11 (Cpus_allowed_list of") {
		t.Errorf("Select(12) under a 0-11 mask: %v", err)
	}
}

// An isolcpus CPU: outside the inherited mask, inside the cpuset. While
// nothing narrowed the mask (it holds every other online CPU, the kernel's
// default) it is a valid target (a thread may widen its own mask within its
// cpuset), and the reason says so; a CPU outside the cpuset is refused,
// naming its file.
func TestSelectWidensWithinTheCpuset(t *testing.T) {
	topo := readMachine(t, "phone-1-4-4")
	allowed, cs := cpuset.MustParse("0-7"), cpuset.MustParse("0-8")
	topo.Allowed, topo.Cpuset, topo.CpusetFile = &allowed, &cs, "/sys/fs/cgroup/cpuset.cpus.effective"
	topo.Isolated, topo.CPU(8).Isolated = cpuset.Of(8), true
	got, err := topo.Select("8")
	if err != nil {
		t.Fatalf("Select(8) inside the cpuset: %v", err)
	}
	if got.ExactCPU != 8 || !strings.Contains(got.Why, "isolated (isolcpus), outside the kernel's default mask that corepin inherited (0-7) but inside its cpuset 0-8 (/sys/fs/cgroup/cpuset.cpus.effective)") {
		t.Errorf("Select(8) = %d, %q", got.ExactCPU, got.Why)
	}
	if got, _ := topo.Select("prime"); got.ExactCPU != 7 {
		t.Errorf("prime chooses %d: the automatic choice stays within the inherited mask 0-7", got.ExactCPU)
	}
	cs = cpuset.MustParse("0-7")
	if _, err := topo.Select("8"); err == nil || !strings.Contains(err.Error(), "CPU 8 is outside this process's cpuset 0-7 (/sys/fs/cgroup/cpuset.cpus.effective)") {
		t.Errorf("Select(8) outside the cpuset: %v", err)
	}
}

// corepin never widens past a mask someone narrowed (taskset, Slurm's
// task/affinity), although the kernel would let it within the cpuset: a
// CPU outside it is refused, naming the mask and its file; so is an
// isolcpus CPU once the mask leaves out other CPUs too.
func TestSelectKeepsToTheInheritedMask(t *testing.T) {
	topo := readMachine(t, "phone-1-4-4")
	allowed, cs := cpuset.MustParse("0-3"), cpuset.MustParse("0-8")
	topo.Allowed, topo.Cpuset, topo.CpusetFile = &allowed, &cs, "/sys/fs/cgroup/cpuset.cpus.effective"
	topo.Isolated, topo.CPU(8).Isolated = cpuset.Of(8), true
	for _, spec := range []string{"4", "8", "3-4"} {
		_, err := topo.Select(spec)
		if err == nil || !strings.Contains(err.Error(), "is outside the CPUs this process inherited, 0-3 (Cpus_allowed_list of") {
			t.Errorf("Select(%s) under a 0-3 mask: %v", spec, err)
		}
	}
	if _, err := topo.SelectCPUs(cpuset.MustParse("2-5")); err == nil || !strings.Contains(err.Error(), "CPU 4 is outside the CPUs this process inherited") {
		t.Errorf("SelectCPUs(2-5) under a 0-3 mask: %v", err)
	}
	if got, err := topo.Select("3"); err != nil || got.ExactCPU != 3 {
		t.Errorf("Select(3) inside the mask: %v, %v", got, err)
	}
}

// withOffline copies a machine's tree with CPUs taken offline.
func withOffline(t *testing.T, name string, off cpuset.Set) *Topology {
	t.Helper()
	root := copyTree(t, machineRoot(name))
	orig, err := Read(fsroot.Root(root))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range off.CPUs() {
		if err := os.WriteFile(filepath.Join(root, cpuDir, fmt.Sprintf("cpu%d", id), "online"), []byte("0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, cpuDir, "online"), []byte(orig.Online.Difference(off).String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	topo, err := Read(fsroot.Root(root))
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// A phone whose prime core is offline has lost its fastest class: big is
// refused with the reason, prime says what it settled for, little works.
func TestSelectLostBigCluster(t *testing.T) {
	topo := withOffline(t, "phone-1-4-4", cpuset.Of(8))
	if len(topo.Lost) != 1 || !topo.Lost[0].CPUs.Equal(cpuset.Of(8)) || *topo.Lost[0].Capacity != 1024 {
		t.Fatalf("lost groups %+v, want CPU 8 of capacity 1024", topo.Lost)
	}
	if _, err := topo.Select("big"); err == nil || !strings.Contains(err.Error(), "the fastest CPUs of this machine (8, capacity 1024) are offline") {
		t.Errorf("Select(big): %v", err)
	}
	if got, err := topo.Select("prime"); err != nil || got.ExactCPU != 7 || !strings.Contains(got.Why, "fastest CPUs 8 (capacity 1024) are offline") {
		t.Errorf("Select(prime) = %d, %q, %v", got.ExactCPU, got.Why, err)
	}
	if got, err := topo.Select("little"); err != nil || got.ExactCPU != 3 {
		t.Errorf("Select(little) = %d, %v", got.ExactCPU, err)
	}
	if _, err := topo.Select("group:2"); err == nil || !strings.Contains(err.Error(), "CPUs 8 (capacity 1024) are offline") {
		t.Errorf("Select(group:2): %v", err)
	}
	if _, err := topo.Select("8"); err == nil || !strings.Contains(err.Error(), "CPU 8 is offline (") {
		t.Errorf("Select(8): %v", err)
	}

	slow := withOffline(t, "phone-1-4-4", cpuset.Range(0, 3))
	if _, err := slow.Select("little"); err == nil || !strings.Contains(err.Error(), "the slowest CPUs of this machine (0-3, capacity 300) are offline") {
		t.Errorf("little with the little cluster offline: %v", err)
	}
	if got, err := slow.Select("big"); err != nil || got.ExactCPU != 8 {
		t.Errorf("big with the little cluster offline = %d, %v", got.ExactCPU, err)
	}
}

func TestReadForSelectionChoosesAlike(t *testing.T) {
	for _, m := range machines {
		full, err := Read(fsroot.Root(machineRoot(m.name)))
		if err != nil {
			t.Fatal(err)
		}
		lite, err := ReadForSelection(fsroot.Root(machineRoot(m.name)))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := full.Select("prime")
		b, _ := lite.Select("prime")
		if a.ExactCPU != b.ExactCPU || !a.SoftCPUs.Equal(b.SoftCPUs) || a.Why != b.Why {
			t.Errorf("%s: full read chooses %+v, selection read %+v", m.name, a, b)
		}
		if lite.CPUs[0].L3 != nil || lite.CPUs[0].Model != "" {
			t.Errorf("%s: the selection read read caches or models", m.name)
		}
	}
}

// On a machine of several NUMA nodes a soft target keeps to the exact
// CPU's node and records it, unless it may cross nodes; CPUs the user
// listed are kept as given.
func TestSelectKeepsToOneNode(t *testing.T) {
	topo, err := Read(fsroot.Root(sysfstest.Unpack(t, "x86_64-epyc_7451")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := topo.Select("prime")
	if err != nil {
		t.Fatal(err)
	}
	node := topo.NodeOf(got.ExactCPU)
	if node == nil || got.Node == nil || *got.Node != *node {
		t.Fatalf("prime: exact %d in node %v, target node %v", got.ExactCPU, node, got.Node)
	}
	for _, id := range got.SoftCPUs.CPUs() {
		if n := topo.NodeOf(id); n == nil || *n != *node {
			t.Errorf("soft CPU %d is in node %v, not %d", id, n, *node)
		}
	}
	if got.SoftCPUs.Len() != 12 || !strings.Contains(got.Why, fmt.Sprintf("kept to NUMA node %d", *node)) {
		t.Errorf("soft %s, why %q", got.SoftCPUs, got.Why)
	}
	cross, err := topo.SelectWith("prime", SelectOptions{CrossNode: true})
	if err != nil || cross.SoftCPUs.Len() != 96 || cross.Node != nil {
		t.Errorf("cross-node: soft %s node %v, %v", cross.SoftCPUs, cross.Node, err)
	}
	listed, err := topo.Select("0-11")
	if err != nil || listed.SoftCPUs.Len() != 12 || listed.Node != nil || !strings.Contains(listed.Why, "span NUMA nodes") {
		t.Errorf("a listed set across nodes: %s node %v, %q, %v", listed.SoftCPUs, listed.Node, listed.Why, err)
	}
}
