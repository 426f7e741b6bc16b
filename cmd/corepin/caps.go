package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

// capabilities is what "corepin caps" reports: what this kernel and this
// user allow, each with its evidence.
type capabilities struct {
	Kernel       string            `json:"kernel"`
	Uclamp       bool              `json:"uclamp"`
	Realtime     bool              `json:"realtime"`
	NiceLowering bool              `json:"nice_lowering"`
	Slice        bool              `json:"slice"`
	QoSNode      bool              `json:"qos_node"`
	Cpufreq      bool              `json:"cpufreq"`
	Isolated     []int             `json:"isolated"`
	AllowedCPUs  int               `json:"allowed_cpus"`
	OnlineCPUs   int               `json:"online_cpus"`
	Evidence     map[string]string `json:"evidence"`
}

func gatherCapabilities() (capabilities, error) {
	c := capabilities{Evidence: map[string]string{}}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		c.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	for name, f := range map[string]sched.Feature{
		"uclamp": sched.Uclamp(), "realtime": sched.Realtime(),
		"nice_lowering": sched.NiceLowering(), "slice": sched.Slice(),
	} {
		c.Evidence[name] = f.Evidence
		switch name {
		case "uclamp":
			c.Uclamp = f.Supported
		case "realtime":
			c.Realtime = f.Supported
		case "nice_lowering":
			c.NiceLowering = f.Supported
		case "slice":
			c.Slice = f.Supported
		}
	}
	c.QoSNode = qos.NodeAvailable()
	c.Evidence["qos_node"] = qos.NodePath + " is missing"
	if c.QoSNode {
		c.Evidence["qos_node"] = qos.NodePath + " exists"
	}
	policies, _ := filepath.Glob("/sys/devices/system/cpu/cpufreq/policy*")
	perCPU, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq")
	c.Cpufreq = len(policies)+len(perCPU) > 0
	c.Evidence["cpufreq"] = fmt.Sprintf("%d cpufreq policies, %d per-CPU cpufreq folders", len(policies), len(perCPU))
	topo, err := topology.Read("/")
	if err != nil {
		return c, err
	}
	c.Isolated = topo.Isolated.CPUs()
	c.OnlineCPUs = topo.Online.Len()
	c.AllowedCPUs = topo.Usable().Len()
	// What the files say, quoted, and apart from it what corepin made of them.
	c.Evidence["isolated"] = fileSays("/sys/devices/system/cpu/isolated", "")
	c.Evidence["allowed_cpus"] = fmt.Sprintf("%s; %s; corepin computed allowed ∩ online = %s",
		fileSays("/proc/self/status", "Cpus_allowed_list"), fileSays("/sys/devices/system/cpu/online", ""), orDash(topo.Usable().String()))
	return c, nil
}

// fileSays quotes a file, or one "Key:" line of it, as evidence:
// `/sys/devices/system/cpu/isolated says "3"`.
func fileSays(path, key string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("%s cannot be read (%v)", path, errors.Unwrap(err))
	}
	text := strings.TrimSpace(string(data))
	if key == "" {
		return fmt.Sprintf("%s says %q", path, text)
	}
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return fmt.Sprintf("%s says %s %q", path, key, strings.TrimSpace(v))
		}
	}
	return fmt.Sprintf("%s has no %s line", path, key)
}

func newCapsCmd() *command {
	var asJSON bool
	cmd := &command{
		use:   "caps",
		short: "Show what this kernel and this user allow, with the evidence",
		long: `Show what this kernel and this user allow: uclamp, realtime policies,
lowering nice, EEVDF slice requests, the HarmonyOS QoS node, cpufreq,
isolated CPUs and the CPUs allowed to this process. Each answer comes from a
real request on a throwaway thread or from the file that says so, and the
evidence is printed beside it.`,
		example: `  corepin caps
  corepin caps --json`,
		args: noArgs,
		run: func(in *invocation, _ []string) error {
			c, err := gatherCapabilities()
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(in.stdout, c)
			}
			w := in.stdout
			fmt.Fprintf(w, "kernel %s, running as uid %d\n\n", c.Kernel, os.Geteuid())
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			row := func(name string, ok bool, key string) {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", name, yesNo(ok), c.Evidence[key])
			}
			row("uclamp", c.Uclamp, "uclamp")
			row("realtime", c.Realtime, "realtime")
			row("lower nice", c.NiceLowering, "nice_lowering")
			row("EEVDF slice", c.Slice, "slice")
			row("HarmonyOS QoS", c.QoSNode, "qos_node")
			row("cpufreq", c.Cpufreq, "cpufreq")
			fmt.Fprintf(tw, "isolated CPUs\t%s\t%s\n", orDash(intsList(c.Isolated)), c.Evidence["isolated"])
			fmt.Fprintf(tw, "allowed CPUs\t%d of %d\t%s\n", c.AllowedCPUs, c.OnlineCPUs, c.Evidence["allowed_cpus"])
			return tw.Flush()
		},
	}
	cmd.flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func intsList(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
