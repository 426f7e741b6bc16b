// Package caps says what a kernel and a user allow corepin to do: uclamp,
// realtime policies, lowering nice, EEVDF slice requests, the HarmonyOS QoS
// node, cpufreq, isolated CPUs, the CPUs allowed to the process, and
// whether autogroup keeps a nice value to its session. Each
// answer carries its evidence: the file that says so, or a real request on
// a throwaway thread where no file can (on the live system only).
package caps

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/oncpu"
	"corepin.dev/corepin/internal/tree"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

// Capabilities is what "corepin caps" reports.
type Capabilities struct {
	Kernel       string `json:"kernel"`
	UID          int    `json:"uid"`
	Uclamp       bool   `json:"uclamp"`
	Realtime     bool   `json:"realtime"`
	NiceLowering bool   `json:"nice_lowering"`
	Slice        bool   `json:"slice"`
	QoSNode      bool   `json:"qos_node"`
	Cpufreq      bool   `json:"cpufreq"`
	Isolated     []int  `json:"isolated"`
	AllowedCPUs  int    `json:"allowed_cpus"`
	OnlineCPUs   int    `json:"online_cpus"`
	// Autogroup: the kernel shares a CPU between sessions first and by
	// nice only within each (sched_autogroup_enabled 1). CPUWeight: corepin
	// can give a run's nice value a cpu cgroup's weight, which acts across
	// sessions; the evidence of "cpu_weight" says how, or why not.
	Autogroup bool `json:"autogroup"`
	CPUWeight bool `json:"cpu_weight"`
	// Preemptors: corepin may trace the scheduler's switch events (BPF)
	// and name who else ran on the target during a run.
	Preemptors bool `json:"preemptors"`
	// RTThrottle is what the realtime throttle costs a realtime thread,
	// where it holds realtime threads back; "" where it does not.
	RTThrottle string `json:"rt_throttle,omitempty"`
	// What a run gets of the means the ladders use, besides Realtime and
	// NiceLowering (nice below 0): Affinity, a mask within the allowed
	// CPUs, which needs no privilege; UclampRaise, a uclamp minimum above
	// the thread's own; Containment, how its process tree is held (a
	// launch mechanism: a run cgroup, or the process group and corepin's
	// subreaping; "" where unknown).
	Affinity    bool              `json:"affinity"`
	UclampRaise bool              `json:"uclamp_raise"`
	Containment string            `json:"containment"`
	Evidence    map[string]string `json:"evidence"`
}

// Read finds the capabilities of the system under root. Realtime, lowering
// nice and slices are known only from a real request, which is made on the
// live system alone; under another root they read as not allowed, with the
// files' facts as the evidence.
func Read(root fsroot.Root) (Capabilities, error) {
	c := Capabilities{UID: os.Geteuid(), Evidence: map[string]string{}}
	if data, err := root.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		c.Kernel = strings.TrimSpace(string(data))
	}
	set := func(key string, ok *bool, f sched.Feature) {
		*ok = f.Supported
		c.Evidence[key] = f.Evidence
	}
	set("uclamp", &c.Uclamp, sched.UclampAt(root))
	if root.IsHost() {
		set("realtime", &c.Realtime, sched.Realtime())
		set("nice_lowering", &c.NiceLowering, sched.NiceLowering())
		set("slice", &c.Slice, sched.Slice())
	} else {
		notHere := "unknown: only a request on " + root.String() + "'s own system can tell"
		c.Evidence["realtime"] = notHere + "; " + strings.Join(sched.RealtimeFacts(root), ", ")
		c.Evidence["nice_lowering"] = notHere + "; " + sched.CapSysNiceFact(root)
		c.Evidence["slice"] = notHere
	}
	c.Evidence["priority"] = sched.PriorityFacts(root)
	c.Affinity, c.Evidence["affinity"] = affinity(root)
	c.UclampRaise, c.Evidence["uclamp_raise"] = uclampRaise(root, c.Uclamp, c.Evidence["uclamp"])
	c.Containment, c.Evidence["containment"] = tree.Containment(root)
	if t, err := sched.ReadRTThrottle(root); err == nil {
		c.RTThrottle = t.Warning()
	}
	c.Autogroup, c.Evidence["autogroup"] = tree.Autogroup(root)
	c.CPUWeight, c.Evidence["cpu_weight"] = tree.CPUWeightPlan(root)
	if root.IsHost() {
		ev, err := oncpu.Supported()
		c.Preemptors, c.Evidence["preemptors"] = err == nil, ev
		if err != nil {
			c.Evidence["preemptors"] = err.Error()
		}
	} else {
		c.Evidence["preemptors"] = "unknown: only loading the tracer on " + root.String() + "'s own system can tell"
	}
	c.QoSNode = qos.HasNode(root)
	c.Evidence["qos_node"] = qos.NodePath + " is missing"
	if c.QoSNode {
		c.Evidence["qos_node"] = qos.NodePath + " exists"
	}
	policies, _ := root.Glob("/sys/devices/system/cpu/cpufreq/policy*")
	perCPU, _ := root.Glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq")
	c.Cpufreq = len(policies)+len(perCPU) > 0
	c.Evidence["cpufreq"] = fmt.Sprintf("%d cpufreq policies, %d per-CPU cpufreq folders", len(policies), len(perCPU))
	topo, err := topology.ReadForSelection(root)
	if err != nil {
		return c, err
	}
	c.Isolated = topo.Isolated.CPUs()
	c.OnlineCPUs = topo.Online.Len()
	c.AllowedCPUs = topo.Usable().Len()
	// What the files say, quoted, and apart from it what corepin made of them.
	usable := topo.Usable().String()
	if usable == "" {
		usable = "-"
	}
	c.Evidence["isolated"] = fileSays(root, "/sys/devices/system/cpu/isolated", "")
	c.Evidence["allowed_cpus"] = fmt.Sprintf("%s; %s; corepin computed allowed ∩ online = %s",
		fileSays(root, "/proc/self/status", "Cpus_allowed_list"), fileSays(root, "/sys/devices/system/cpu/online", ""), usable)
	return c, nil
}

// fileSays quotes a file under root, or one "Key:" line of it, as evidence:
// `/sys/devices/system/cpu/isolated says "3"`.
func fileSays(root fsroot.Root, path, key string) string {
	data, err := root.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("%s cannot be read (%v)", root.Path(path), errors.Unwrap(err))
	}
	text := strings.TrimSpace(string(data))
	if key == "" {
		return fmt.Sprintf("%s says %q", root.Path(path), text)
	}
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return fmt.Sprintf("%s says %s %q", root.Path(path), key, strings.TrimSpace(v))
		}
	}
	return fmt.Sprintf("%s has no %s line", root.Path(path), key)
}

// WriteText writes one line per capability: the name, yes or no, and the
// evidence.
func (c Capabilities) WriteText(w io.Writer) error {
	kernel := c.Kernel
	if kernel == "" {
		kernel = "(release unknown)"
	}
	fmt.Fprintf(w, "kernel %s, running as uid %d\n\n", kernel, c.UID)
	// First what a run gets, as its ladder will find it.
	fmt.Fprintln(w, "a run gets:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name string, ok bool, key string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, yesNo(ok), c.Evidence[key])
	}
	row("  affinity", c.Affinity, "affinity")
	row("  nice below 0", c.NiceLowering, "nice_lowering")
	row("  realtime", c.Realtime, "realtime")
	row("  uclamp raise", c.UclampRaise, "uclamp_raise")
	fmt.Fprintf(tw, "  process tree\t%s\t%s\n", containment(c.Containment), c.Evidence["containment"])
	if err := tw.Flush(); err != nil {
		return err
	}
	if why := c.NotRaised(); why != "" {
		fmt.Fprintf(w, "a run's priority cannot be raised here: %s; it gets its CPU (affinity) alone\n", why)
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row("uclamp", c.Uclamp, "uclamp")
	row("EEVDF slice", c.Slice, "slice")
	row("autogroup", c.Autogroup, "autogroup")
	row("cpu weight", c.CPUWeight, "cpu_weight")
	row("preemptors", c.Preemptors, "preemptors")
	row("HarmonyOS QoS", c.QoSNode, "qos_node")
	row("cpufreq", c.Cpufreq, "cpufreq")
	isolated := "-"
	if len(c.Isolated) > 0 {
		isolated = fmt.Sprint(c.Isolated)
		isolated = strings.NewReplacer(" ", ",", "[", "", "]", "").Replace(isolated)
	}
	fmt.Fprintf(tw, "isolated CPUs\t%s\t%s\n", isolated, c.Evidence["isolated"])
	fmt.Fprintf(tw, "allowed CPUs\t%d of %d\t%s\n", c.AllowedCPUs, c.OnlineCPUs, c.Evidence["allowed_cpus"])
	if err := tw.Flush(); err != nil {
		return err
	}
	if c.Autogroup {
		fmt.Fprintln(w)
		if c.CPUWeight {
			fmt.Fprintln(w, "autogroup: nice orders tasks only within a session; corepin puts a run whose step sets a nice value into a cpu cgroup of that nice value's weight (not a realtime step)")
		} else {
			fmt.Fprintln(w, "warning: autogroup: nice orders tasks only within a session, and corepin can make no cpu cgroup to carry it: busy tasks of other sessions share the target as equals")
		}
	}
	// A realtime step would be accepted, and the throttle would cost it.
	if c.Realtime && c.RTThrottle != "" {
		fmt.Fprintf(w, "\nwarning: %s\n", c.RTThrottle)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
