package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
)

// A shape is one machine: which kernel it boots, how qemu lays out its
// CPUs, and what the guest does to them before the command runs.
type shape struct {
	name    string
	about   string
	kernel  string   // key into kernels
	smp     string   // qemu -smp
	cpu     string   // qemu -cpu under TCG ("" = the architecture's default)
	memMiB  int      // total guest memory
	extra   []string // further qemu arguments
	cmdline string   // appended to the kernel command line
	offline []int    // CPUs taken offline before the command runs
	// unplug is the CPU taken offline 1 s after the unplug check's pinned
	// command runs, and brought back 2 s later (-1: none).
	unplug int
	// capacities and clusters describe an arm64 device tree: the
	// capacity-dmips-mhz of each CPU and the CPUs of each cluster.
	capacities []int
	clusters   [][]int
	// noCgroup: no cgroup file system is mounted in the guest, as in many
	// containers and small boards; corepin holds a run's tree with its
	// process group and subreaping there.
	noCgroup bool
	// uid, when not 0, is the user the command runs as, with no
	// capabilities (adb shell's is 2000); the guest's set-up is still
	// root's.
	uid int
	// packages are the packages whose tests matrix -tests runs in the
	// shape when -packages is not given (every package when empty); short
	// are those of them whose tests run with -test.short there.
	packages, short []string
	// skip gives a package (a pattern of packages) the -test.skip
	// expression of its tests that the shape leaves out, each for a reason
	// said where the expression is made.
	skip map[string]string
}

// testFlags are the shape's own flags for its packages' test binaries, by
// package pattern.
func (s shape) testFlags() map[string][]string {
	flags := map[string][]string{}
	for _, p := range s.short {
		flags[p] = append(flags[p], "-test.short")
	}
	for p, expr := range s.skip {
		flags[p] = append(flags[p], "-test.skip="+expr)
	}
	return flags
}

// cpus is the number of CPUs the shape boots with.
func (s shape) cpus() int {
	n := 0
	fmt.Sscanf(s.smp, "%d", &n)
	return n
}

var shapes = map[string]shape{
	"smt8": {
		about:  "1 socket, 4 cores × 2 threads (siblings 0-1, 2-3, …)",
		kernel: "6.12-amd64", smp: "8,sockets=1,cores=4,threads=2",
		// TCG's default AMD model cannot express hyperthreads; leaf 0xB of
		// an Intel vendor string can.
		cpu: "max,vendor=GenuineIntel", unplug: -1,
	},
	"numa2": {
		about:  "2 sockets × 4 cores, NUMA nodes 0 (CPUs 0-3) and 1 (4-7)",
		kernel: "6.1-amd64", smp: "8,sockets=2,cores=4,threads=1", memMiB: 2048,
		extra: []string{
			"-object", "memory-backend-ram,id=m0,size=1G",
			"-object", "memory-backend-ram,id=m1,size=1G",
			"-numa", "node,nodeid=0,cpus=0-3,memdev=m0",
			"-numa", "node,nodeid=1,cpus=4-7,memdev=m1",
			"-numa", "dist,src=0,dst=1,val=21",
		},
		unplug: -1,
	},
	"offline": {
		about:  "4 CPUs, CPU 3 taken offline before the command",
		kernel: "6.12-amd64", smp: "4", offline: []int{3}, unplug: -1,
	},
	"hole": {
		about:  "4 CPUs, CPU 1 offline: a hole in the online list (0,2-3)",
		kernel: "6.1-amd64", smp: "4", offline: []int{1}, unplug: -1,
	},
	"isolcpus": {
		about:  "4 CPUs, isolcpus=3 nohz_full=3",
		kernel: "6.12-amd64", smp: "4", cmdline: "isolcpus=3 nohz_full=3", unplug: -1,
	},
	"unplug": {
		about:  "4 CPUs; CPU 3 goes offline 1 s into a run pinned there, and back 2 s later",
		kernel: "6.12-amd64", smp: "4", unplug: 3,
	},
	"arm64-2+2": {
		about:  "arm64, clusters 0-1 (capacity 512) and 2-3 (1024)",
		kernel: "6.1-arm64", smp: "4", unplug: -1,
		capacities: []int{512, 512, 1024, 1024},
		clusters:   [][]int{{0, 1}, {2, 3}},
	},
	"arm64-3tier": {
		about:  "arm64, little 0-2 (capacity 400), middle 3-4 (800), prime 5 (1024)",
		kernel: "6.1-arm64", smp: "6", unplug: -1,
		capacities: []int{400, 400, 400, 800, 800, 1024},
		clusters:   [][]int{{0, 1, 2}, {3, 4}, {5}},
	},
	"nocgroup": {
		about:  "4 CPUs, CPU 3 offline, no cgroup file system mounted",
		kernel: "6.1-amd64", smp: "4", offline: []int{3}, unplug: -1,
		noCgroup: true, packages: kernelFacing, short: shortInGuests, skip: savedMachinesInGuests,
	},
	"shell-user": {
		about:  "4 CPUs; the command runs as uid 2000 without capabilities, as adb shell does",
		kernel: "6.12-amd64", smp: "4", unplug: -1,
		uid: shellUID, packages: kernelFacing, short: shortInGuests, skip: savedMachinesInGuests,
	},
	"uclamp": {
		about:  "4 CPUs, a kernel built with CONFIG_UCLAMP_TASK (uclamp-kernel.sh)",
		kernel: "uclamp", smp: "4", unplug: -1,
	},
}

// shellUID is the user adb shell runs as on Android.
const shellUID = 2000

// kernelFacing are the packages whose tests meet the kernel: what the
// shapes of other privileges and mounts run. topology is not among them:
// its tests are of saved machines, whose reading no mount or user changes
// (smt8 runs them, and under TCG they take minutes of 9p reads); its
// reading of the live machine is in every corepin command the checks and
// these tests run.
var kernelFacing = []string{"./cpuset", "./sched", "./session", "./launch", "./internal/watch", "./cmd/corepin/internal/telemetry",
	"./internal/observer", "./cmd/corepin/internal/caps", "./cmd/corepin/internal/runner", "./cmd/corepin"}

// shortInGuests run with -test.short in the shapes of kernelFacing: under
// TCG cmd/corepin's whole benchmark suites and experiments take longer
// than CI's budget; -short keeps the rest of its tests, exec's, run's and
// caps' among them.
var shortInGuests = []string{"./cmd/corepin"}

// savedMachinesInGuests leaves out, in the shapes of kernelFacing,
// cmd/corepin's tests of corepin system on saved machines: each copies a
// fixture tree of cmd/corepin/internal/system/testdata over 9p and compares every file of it
// before and after (a minute of the nocgroup guest's tests under TCG), and
// no mount or user changes what they read; the host runs them, and
// system's own guests the real machine's tuning. The tests of the
// journal's owner and lock, and of system show on the live machine, stay.
var savedMachinesInGuests = map[string]string{
	"./cmd/corepin": "^(TestSystemShowFixture|TestSystemTuneResetFixture|TestSystemTuneWithoutCpufreq|TestSystemSignalEndsTheLockWait)$",
}

func init() {
	for name, s := range shapes {
		s.name = name
		shapes[name] = s
	}
}

// shapeNames returns the shapes in a stable order: x86 first, then arm64,
// then the ones that need a locally built kernel.
func shapeNames() []string {
	order := []string{"smt8", "numa2", "offline", "hole", "isolcpus", "unplug", "arm64-2+2", "arm64-3tier", "nocgroup", "shell-user", "uclamp"}
	seen := map[string]bool{}
	for _, n := range order {
		seen[n] = true
	}
	var rest []string
	for n := range shapes {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(order, rest...)
}

func lookupShape(name string) (shape, error) {
	s, ok := shapes[name]
	if !ok {
		return shape{}, fmt.Errorf("no shape %q (known: %s)", name, strings.Join(shapeNames(), ", "))
	}
	return s, nil
}

func cmdShapes(_ context.Context, args []string) int {
	fs := newFlags("shapes")
	if ok, code := parseFlags(fs, args); !ok {
		return code
	}
	for _, n := range shapeNames() {
		s := shapes[n]
		fmt.Fprintf(os.Stdout, "%-12s %-11s %s\n", n, s.kernel, s.about)
	}
	return 0
}
