package main

// The truth checks: each runs corepin inside a guest and compares what it
// says with an independent witness. They run in the guest ("machines guest
// check"), one process per boot, and write their results to the share.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A checkResult is one cell of the matrix.
type checkResult struct {
	Check    string `json:"check"`
	Status   string `json:"status"` // ok, failed or skipped
	Evidence string `json:"evidence"`
}

const (
	statusOK      = "ok"
	statusFailed  = "failed"
	statusSkipped = "skipped"
)

// A check is one named comparison; applies says on which shapes it means
// something.
type check struct {
	name    string
	about   string
	applies func(s shape) bool
	run     func(c *checker) checkResult
}

func always(shape) bool { return true }

var checks []check

func init() {
	checks = []check{
		{"topo", "corepin topo --json vs lscpu -p and sysfs (online, siblings, sockets, nodes, clusters, capacities, target)", always, (*checker).topo},
		{"caps", "corepin caps --json vs the kernel's files (uclamp, slice, realtime, isolated, online, allowed, cpufreq)", always, (*checker).caps},
		{"model", "corepin's CPU model vs lscpu's Model name", always, (*checker).model},
		{"exec", "corepin exec --report vs taskset -p, chrt -p, /proc/PID/stat and task status during the run", notUnplug, (*checker).exec},
		{"observer", "corepin's own threads and the watcher, from /proc/PID/task/*/status, vs the target's SMT siblings", notUnplug, (*checker).observer},
		{"sampler", "corepin telemetry --avoid T: the sampler's thread vs the target's SMT siblings", notUnplug, (*checker).sampler},
		{"offline", "corepin exec --cpu N with N offline is refused, naming offline", hasOffline, (*checker).offline},
		{"isolcpus", "corepin exec --cpu N on an isolcpus CPU runs there, as root", func(s shape) bool { return strings.Contains(s.cmdline, "isolcpus") }, (*checker).isolcpus},
		{"numa", "a soft target stays within one NUMA node (records it) unless --cross-node", func(s shape) bool { return s.name == "numa2" }, (*checker).numa},
		{"lost-big", "--target big with the fastest cluster offline is refused with the reason", func(s shape) bool { return len(s.capacities) > 0 }, (*checker).lostBig},
		{"unplug", "the target goes offline mid-run: summary and report say so, with the residency", func(s shape) bool { return s.unplug >= 0 }, (*checker).unplug},
		{"uclamp", "the geekbench ladder's uclamp step read back by uclampset -p, and restored", func(s shape) bool { return s.kernel == "uclamp" }, (*checker).uclamp},
		{"nocgroup", "without a cgroup mounted, exec --timeout 1s ends the whole tree in time by its process group; exec -- true warns of nothing", func(s shape) bool { return s.noCgroup }, (*checker).nocgroup},
		{"irq-advice", "a per-CPU interrupt (arm64's arch_timer) is named as one in system show and advises no tune", func(s shape) bool { return kernels[s.kernel].arch == "arm64" }, (*checker).irqAdvice},
		{"shell-user", "as uid 2000 without capabilities, caps and run --quick say what a run cannot have; every run names what held its tree", func(s shape) bool { return s.uid != 0 }, (*checker).shellUser},
	}
}

func notUnplug(s shape) bool  { return s.unplug < 0 }
func hasOffline(s shape) bool { return len(s.offline) > 0 }

// checker runs checks inside a guest.
type checker struct {
	ctx      context.Context
	corepin  string // the corepin binary
	shape    shape
	tmp      string
	topoJSON *topoView // corepin topo --json, read once
}

// topoView is the part of corepin topo --json the checks read; decoding it
// here, not with corepin's types, keeps the checks independent.
type topoView struct {
	Model    string  `json:"model"`
	Online   cpuList `json:"online"`
	Isolated cpuList `json:"isolated"`
	Allowed  cpuList `json:"allowed"`
	CPUs     []struct {
		CPU      int     `json:"cpu"`
		Online   bool    `json:"online"`
		Package  *int    `json:"package"`
		Core     *int    `json:"core"`
		Cluster  *int    `json:"cluster"`
		Siblings cpuList `json:"siblings"`
		Capacity *int    `json:"capacity"`
		Node     *int    `json:"node"`
		Model    string  `json:"model"`
	} `json:"cpus"`
	Groups []struct {
		Rank     int     `json:"rank"`
		CPUs     cpuList `json:"cpus"`
		Capacity *int    `json:"capacity"`
	} `json:"groups"`
	Target struct {
		Spec     string  `json:"spec"`
		ExactCPU int     `json:"exact_cpu"`
		SoftCPUs cpuList `json:"soft_cpus"`
	} `json:"target"`
}

// corepinRun runs corepin and returns stdout, stderr and the exit status.
func (c *checker) corepinRun(args ...string) (string, string, int) {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.corepin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return out.String(), err.Error(), -1
	}
	return out.String(), errOut.String(), code
}

func (c *checker) readTopo() (*topoView, error) {
	if c.topoJSON != nil {
		return c.topoJSON, nil
	}
	out, errOut, code := c.corepinRun("topo", "--json")
	if code != 0 {
		return nil, fmt.Errorf("corepin topo --json: exit %d: %s", code, strings.TrimSpace(errOut))
	}
	var t topoView
	if err := json.Unmarshal([]byte(out), &t); err != nil {
		return nil, fmt.Errorf("corepin topo --json: %w", err)
	}
	c.topoJSON = &t
	return &t, nil
}

// target is the CPU the exec checks pin to: corepin's own choice, or on
// an isolcpus machine the isolated CPU.
func (c *checker) target() (int, error) {
	if iso := sysList("isolated"); len(iso) > 0 {
		return iso[len(iso)-1], nil
	}
	t, err := c.readTopo()
	if err != nil {
		return 0, err
	}
	return t.Target.ExactCPU, nil
}

func ok(name, format string, args ...any) checkResult {
	return checkResult{Check: name, Status: statusOK, Evidence: fmt.Sprintf(format, args...)}
}

func failed(name, format string, args ...any) checkResult {
	return checkResult{Check: name, Status: statusFailed, Evidence: fmt.Sprintf(format, args...)}
}

func skipped(name, format string, args ...any) checkResult {
	return checkResult{Check: name, Status: statusSkipped, Evidence: fmt.Sprintf(format, args...)}
}

// problems collects mismatches and reports the first few.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p problems) result(name, okText string) checkResult {
	if len(p) == 0 {
		return ok(name, "%s", okText)
	}
	shown := p
	if len(shown) > 4 {
		shown = append(shown[:4:4], fmt.Sprintf("and %d more", len(p)-4))
	}
	return failed(name, "%s", strings.Join(shown, "; "))
}

func (c *checker) topo() checkResult {
	const name = "topo"
	t, err := c.readTopo()
	if err != nil {
		return failed(name, "%v", err)
	}
	rows, err := lscpuRows(c.ctx)
	if err != nil {
		return failed(name, "%v", err)
	}
	online := sysList("online")
	var p problems
	if !t.Online.equal(online) {
		p.add("online %s, sysfs online %s", t.Online, online)
	}
	clusterOf := map[int]int{}
	for _, cpu := range t.CPUs {
		if cpu.Cluster != nil {
			clusterOf[cpu.CPU] = *cpu.Cluster
		}
	}
	sockets, nodes := map[int]bool{}, map[int]bool{}
	for _, cpu := range t.CPUs {
		r, ok := rows[cpu.CPU]
		if !ok {
			p.add("CPU %d is not in lscpu -p", cpu.CPU)
			continue
		}
		if cpu.Online != r.online {
			p.add("CPU %d online %v, lscpu %v", cpu.CPU, cpu.Online, r.online)
		}
		if !cpu.Online {
			continue
		}
		// Siblings: the online CPUs lscpu puts on the same core.
		var want cpuList
		for id := range rows {
			if o := rows[id]; o.online && o.core == r.core && o.socket == r.socket {
				want = append(want, id)
			}
		}
		sort.Ints(want)
		if !cpu.Siblings.equal(want) {
			p.add("CPU %d siblings %s, lscpu's core %d has %s", cpu.CPU, cpu.Siblings, r.core, want)
		}
		if r.socket >= 0 && (cpu.Package == nil || *cpu.Package != r.socket) {
			p.add("CPU %d package %s, lscpu socket %d", cpu.CPU, optInt(cpu.Package), r.socket)
		}
		if r.node >= 0 && (cpu.Node == nil || *cpu.Node != r.node) {
			p.add("CPU %d node %s, lscpu node %d", cpu.CPU, optInt(cpu.Node), r.node)
		}
		sockets[r.socket], nodes[r.node] = true, true
		if s, ok := sysCPU(fmt.Sprintf("cpu%d/cpu_capacity", cpu.CPU)); ok {
			if cpu.Capacity == nil || strconv.Itoa(*cpu.Capacity) != s {
				p.add("CPU %d capacity %s, cpu_capacity %s", cpu.CPU, optInt(cpu.Capacity), s)
			}
		}
		if s, ok := sysCPU(fmt.Sprintf("cpu%d/topology/cluster_cpus_list", cpu.CPU)); ok {
			cl, _ := parseList(s)
			var same cpuList
			for _, o := range t.CPUs {
				if o.Online && o.Cluster != nil && cpu.Cluster != nil && *o.Cluster == *cpu.Cluster {
					same = append(same, o.CPU)
				}
			}
			if !same.equal(cl.intersect(online)) {
				p.add("CPU %d's cluster holds %s, cluster_cpus_list %s", cpu.CPU, same, s)
			}
		}
	}
	// The target: online, allowed, and in the fastest group.
	tc := t.Target.ExactCPU
	if !online.has(tc) {
		p.add("target CPU %d is offline", tc)
	}
	if len(t.Groups) > 0 && !t.Groups[0].CPUs.has(tc) && len(t.Allowed) > 0 && t.Groups[0].CPUs.intersects(t.Allowed) {
		p.add("target CPU %d is not in the fastest group %s", tc, t.Groups[0].CPUs)
	}
	return p.result(name, fmt.Sprintf("%d CPUs (online %s) in %d sockets, %d nodes, %d groups agree with lscpu -p and sysfs; target CPU %d",
		len(t.CPUs), online, len(sockets), len(nodes), len(t.Groups), tc))
}

func (l cpuList) intersect(m cpuList) cpuList {
	var out cpuList
	for _, c := range l {
		if m.has(c) {
			out = append(out, c)
		}
	}
	return out
}

func optInt(v *int) string {
	if v == nil {
		return "unknown"
	}
	return strconv.Itoa(*v)
}

// capsView is the part of corepin caps --json the check reads.
type capsView struct {
	Kernel      string            `json:"kernel"`
	Uclamp      bool              `json:"uclamp"`
	Realtime    bool              `json:"realtime"`
	Slice       bool              `json:"slice"`
	Cpufreq     bool              `json:"cpufreq"`
	Isolated    []int             `json:"isolated"`
	AllowedCPUs int               `json:"allowed_cpus"`
	OnlineCPUs  int               `json:"online_cpus"`
	Evidence    map[string]string `json:"evidence"`
}

func (c *checker) caps() checkResult {
	const name = "caps"
	out, errOut, code := c.corepinRun("caps", "--json")
	if code != 0 {
		return failed(name, "corepin caps --json: exit %d: %s", code, strings.TrimSpace(errOut))
	}
	var v capsView
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		return failed(name, "corepin caps --json: %v", err)
	}
	var p problems
	_, uclampFile := os.Stat("/proc/sys/kernel/sched_util_clamp_min")
	if v.Uclamp != (uclampFile == nil) {
		p.add("uclamp %v, /proc/sys/kernel/sched_util_clamp_min exists: %v", v.Uclamp, uclampFile == nil)
	}
	// A slice request reads back on EEVDF kernels from 6.12 on: EEVDF's
	// debugfs has base_slice_ns (CFS has min_granularity_ns instead).
	// debugfs is root's (mode 0700): another user's witness is the
	// kernel's version alone, as the 6.1 kernels here are CFS and the
	// 6.12 ones EEVDF.
	_, eevdf := os.Stat("/sys/kernel/debug/sched/base_slice_ns")
	if os.IsPermission(eevdf) {
		eevdf = nil
	}
	wantSlice := eevdf == nil && kernelAtLeast(6, 12)
	if v.Slice != wantSlice {
		p.add("slice %v, kernel %s with base_slice_ns: %v", v.Slice, v.Kernel, eevdf == nil)
	}
	_, rtErr := tool(c.ctx, "chrt", "-f", "1", "true")
	if v.Realtime != (rtErr == nil) {
		p.add("realtime %v, chrt -f 1 true: %v", v.Realtime, rtErr)
	}
	iso := sysList("isolated")
	if !cpuList(v.Isolated).equal(iso) {
		p.add("isolated %v, /sys/devices/system/cpu/isolated %s", v.Isolated, iso)
	}
	online := sysList("online")
	if v.OnlineCPUs != len(online) {
		p.add("online_cpus %d, /sys/devices/system/cpu/online %s", v.OnlineCPUs, online)
	}
	self, _ := parseList(statusField("/proc/self/status", "Cpus_allowed_list"))
	if allowed := self.intersect(online); v.AllowedCPUs != len(allowed) {
		p.add("allowed_cpus %d, this process's Cpus_allowed_list ∩ online = %s", v.AllowedCPUs, allowed)
	}
	policies, _ := filepath.Glob("/sys/devices/system/cpu/cpufreq/policy*")
	if v.Cpufreq != (len(policies) > 0) {
		p.add("cpufreq %v, %d policies", v.Cpufreq, len(policies))
	}
	// The evidence quotes what the file says.
	isoText, _ := sysCPU("isolated")
	if ev := v.Evidence["isolated"]; !strings.Contains(ev, fmt.Sprintf("%q", isoText)) {
		p.add("the isolated evidence %q does not quote the file's %q", ev, isoText)
	}
	return p.result(name, fmt.Sprintf("kernel %s: uclamp %v, slice %v, realtime %v, isolated %s, %d online, %d allowed, cpufreq %v match the kernel's files",
		v.Kernel, v.Uclamp, v.Slice, v.Realtime, iso, v.OnlineCPUs, v.AllowedCPUs, v.Cpufreq))
}

// kernelAtLeast compares the running kernel's release with major.minor.
func kernelAtLeast(major, minor int) bool {
	data, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return false
	}
	var a, b int
	fmt.Sscanf(string(data), "%d.%d", &a, &b)
	return a > major || (a == major && b >= minor)
}

func (c *checker) model() checkResult {
	const name = "model"
	t, err := c.readTopo()
	if err != nil {
		return failed(name, "%v", err)
	}
	want := lscpuModel(c.ctx)
	if want == "" {
		return skipped(name, "lscpu names no model")
	}
	if !strings.Contains(t.Model, want) {
		return failed(name, "corepin says %q, lscpu %q", t.Model, want)
	}
	return ok(name, "%q, as lscpu says", t.Model)
}

// A pinnedRun is corepin exec running a busy shell loop, with the
// witnesses' view of it taken while it runs.
type pinnedRun struct {
	corepinPID, childPID int
	stdout, stderr       string
	code                 int
	report               execReport
	reportErr            error
	// During the run:
	taskset   cpuList
	policy    string
	prio      int
	nice      int
	ranOn     int
	childMask map[int]cpuList // the child's threads
	ownMasks  map[int]cpuList // corepin's threads
}

// execReport is the part of corepin exec --report the checks read.
type execReport struct {
	Target struct {
		Mode string  `json:"mode"`
		CPU  int     `json:"cpu"`
		CPUs cpuList `json:"cpus"`
		Node *int    `json:"node"`
	} `json:"target"`
	Readback struct {
		CPUs     cpuList `json:"cpus"`
		CPU      int     `json:"cpu"`
		Policy   string  `json:"policy"`
		Priority int     `json:"priority"`
		Nice     int     `json:"nice"`
		Uclamp   struct {
			Supported bool `json:"supported"`
			Min       *int `json:"min"`
			Max       *int `json:"max"`
		} `json:"uclamp"`
	} `json:"readback"`
	Ladder struct {
		Name         string `json:"name"`
		AcceptedStep int    `json:"accepted_step"`
		Steps        []struct {
			Step     int    `json:"step"`
			Asked    string `json:"asked"`
			Accepted bool   `json:"accepted"`
		} `json:"steps"`
	} `json:"ladder"`
	Restore struct {
		Done bool `json:"done"`
		OK   bool `json:"ok"`
	} `json:"restore"`
	Watch *struct {
		WatcherCPUs cpuList  `json:"watcher_cpus"`
		Errors      []string `json:"errors"`
		Offline     *struct {
			CPUs   cpuList `json:"cpus"`
			AtS    float64 `json:"at_s"`
			Before struct {
				Running  int `json:"running_samples"`
				OnTarget int `json:"on_target_samples"`
			} `json:"before"`
			After struct {
				Running  int `json:"running_samples"`
				OnTarget int `json:"on_target_samples"`
			} `json:"after"`
		} `json:"target_offline"`
	} `json:"watch"`
	Parent struct {
		CPUs cpuList `json:"cpus"`
		Note string  `json:"note"`
	} `json:"parent"`
}

// runPinned runs corepin exec with args around a busy loop that says when
// it runs, looks at it with the witnesses, lets it end after hold, and
// reads the report.
func (c *checker) runPinned(hold time.Duration, during func(*pinnedRun), args ...string) (*pinnedRun, error) {
	dir, err := os.MkdirTemp(c.tmp, "exec-")
	if err != nil {
		return nil, err
	}
	ready, stop, report := filepath.Join(dir, "ready"), filepath.Join(dir, "stop"), filepath.Join(dir, "report.json")
	loop := fmt.Sprintf("echo $$ > %s; while [ ! -e %s ]; do :; done", ready, stop)
	argv := append([]string{"exec", "--report", report}, args...)
	argv = append(argv, "--", "sh", "-c", loop)
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.corepin, argv...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &pinnedRun{corepinPID: cmd.Process.Pid}
	pidText, werr := waitFile(ctx, ready, 2*time.Minute)
	if werr == nil {
		r.childPID, _ = strconv.Atoi(pidText)
		time.Sleep(300 * time.Millisecond) // let the watcher take a few samples
		r.taskset, _ = tasksetMask(ctx, r.childPID)
		r.policy, r.prio, _ = chrtPolicy(ctx, r.childPID)
		r.nice, _ = statNice(r.childPID)
		r.ranOn, _ = statCPU(r.childPID)
		r.childMask = taskMasks(r.childPID)
		r.ownMasks = taskMasks(r.corepinPID)
		if during != nil {
			during(r)
		}
		time.Sleep(hold)
	}
	os.WriteFile(stop, nil, 0o644)
	err = cmd.Wait()
	r.stdout, r.stderr = out.String(), errOut.String()
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		return r, err
	}
	if werr != nil {
		return r, fmt.Errorf("%v (corepin exited %d: %s)", werr, r.code, strings.TrimSpace(r.stderr))
	}
	data, err := os.ReadFile(report)
	if err != nil {
		r.reportErr = err
	} else {
		r.reportErr = json.Unmarshal(data, &r.report)
	}
	return r, nil
}

func (c *checker) exec() checkResult {
	const name = "exec"
	t, r, err := c.pinnedOnTarget()
	if err != nil {
		return failed(name, "%v", err)
	}
	return c.compareExec(name, t, r)
}

// pinnedOnTarget is runPinned on the target corepin chooses, asked with
// --cpu.
func (c *checker) pinnedOnTarget() (int, *pinnedRun, error) {
	t, err := c.target()
	if err != nil {
		return 0, nil, err
	}
	r, err := c.runPinned(0, nil, "--cpu", strconv.Itoa(t))
	return t, r, err
}

func (c *checker) compareExec(name string, t int, r *pinnedRun) checkResult {
	var p problems
	if r.code != 0 {
		p.add("corepin exec exited %d: %s", r.code, strings.TrimSpace(r.stderr))
	}
	if r.reportErr != nil {
		p.add("report: %v", r.reportErr)
		return p.result(name, "")
	}
	rb := r.report.Readback
	if !rb.CPUs.equal(cpuList{t}) || rb.CPU != t {
		p.add("read-back CPU %d mask %s, asked %d", rb.CPU, rb.CPUs, t)
	}
	if !r.taskset.equal(rb.CPUs) {
		p.add("read-back mask %s, taskset -p %s", rb.CPUs, r.taskset)
	}
	for tid, m := range r.childMask {
		if !m.equal(rb.CPUs) {
			p.add("child thread %d Cpus_allowed_list %s, read-back %s", tid, m, rb.CPUs)
		}
	}
	if rb.Policy != r.policy || rb.Priority != r.prio {
		p.add("read-back %s:%d, chrt -p %s:%d", rb.Policy, rb.Priority, r.policy, r.prio)
	}
	if rb.Nice != r.nice {
		p.add("read-back nice %d, /proc/PID/stat nice %d", rb.Nice, r.nice)
	}
	if r.ranOn != t {
		p.add("/proc/PID/stat says the loop last ran on CPU %d, not %d", r.ranOn, t)
	}
	return p.result(name, fmt.Sprintf("CPU %d: read-back mask %s, %s:%d nice %d agree with taskset -p (%s), chrt -p, /proc/%d/stat (ran on %d) and %d task status files",
		t, rb.CPUs, rb.Policy, rb.Priority, rb.Nice, r.taskset, r.childPID, r.ranOn, len(r.childMask)))
}

// freeOfCore reports whether mask keeps off t's whole core, or, when the
// core's siblings are all that is left besides t, at least off t.
func freeOfCore(mask cpuList, t int, usable cpuList) (bool, string) {
	core := siblingsOf(t)
	if len(usable.minus(core)) == 0 {
		// Nothing off the core: the observer may share the core, not t.
		return !mask.has(t) || len(usable.minus(cpuList{t})) == 0, fmt.Sprintf("only the core %s is usable", core)
	}
	return !mask.intersects(core), ""
}

func (c *checker) observer() checkResult {
	const name = "observer"
	t, r, err := c.pinnedOnTarget()
	if err != nil {
		return failed(name, "%v", err)
	}
	if r.reportErr != nil || r.report.Watch == nil {
		return failed(name, "no watch result in the report (%v): %s", r.reportErr, strings.TrimSpace(r.stderr))
	}
	core := siblingsOf(t)
	usable := sysList("online")
	var p problems
	w := r.report.Watch.WatcherCPUs
	if ok, _ := freeOfCore(w, t, usable); !ok {
		p.add("watcher on %s, target %d's core %s", w, t, core)
	}
	if pc := r.report.Parent.CPUs; len(pc) > 0 {
		if ok, _ := freeOfCore(pc, t, usable); !ok {
			p.add("corepin's threads on %s, target's core %s", pc, core)
		}
	}
	watcherSeen := false
	for tid, m := range r.ownMasks {
		if ok, _ := freeOfCore(m, t, usable); !ok {
			p.add("corepin thread %d Cpus_allowed_list %s, target's core %s", tid, m, core)
		}
		if m.equal(w) {
			watcherSeen = true
		}
	}
	if !watcherSeen {
		p.add("no thread of corepin has the watcher's mask %s (%d threads)", w, len(r.ownMasks))
	}
	return p.result(name, fmt.Sprintf("target %d, core %s: the watcher (%s) and all %d of corepin's threads (/proc/%d/task/*/status) keep off it",
		t, core, w, len(r.ownMasks), r.corepinPID))
}

func (c *checker) sampler() checkResult {
	const name = "sampler"
	t, err := c.target()
	if err != nil {
		return failed(name, "%v", err)
	}
	ctx, cancel := context.WithTimeout(c.ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.corepin, "telemetry", "--interval", "100ms", "--duration", "3s", "--avoid", strconv.Itoa(t), "--format", "json")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		return failed(name, "%v", err)
	}
	time.Sleep(1500 * time.Millisecond)
	masks := taskMasks(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		return failed(name, "corepin telemetry: %v: %s", err, strings.TrimSpace(errOut.String()))
	}
	var series struct {
		SamplerCPUs cpuList `json:"sampler_cpus"`
	}
	if err := json.Unmarshal(out.Bytes(), &series); err != nil {
		return failed(name, "corepin telemetry --format json: %v", err)
	}
	core := siblingsOf(t)
	var p problems
	if ok, _ := freeOfCore(series.SamplerCPUs, t, sysList("online")); !ok {
		p.add("sampler on %s, target %d's core %s", series.SamplerCPUs, t, core)
	}
	seen := false
	for _, m := range masks {
		if m.equal(series.SamplerCPUs) {
			seen = true
		}
	}
	if !seen {
		p.add("no thread of corepin telemetry had the sampler's mask %s", series.SamplerCPUs)
	}
	return p.result(name, fmt.Sprintf("avoid %d (core %s): the sampler's thread ran on %s, seen in /proc/PID/task/*/status", t, core, series.SamplerCPUs))
}

func (c *checker) offline() checkResult {
	const name = "offline"
	var p problems
	online := sysList("online")
	var said string
	for _, o := range c.shape.offline {
		if online.has(o) {
			p.add("CPU %d is online (sysfs online %s)", o, online)
			continue
		}
		_, errOut, code := c.corepinRun("exec", "--cpu", strconv.Itoa(o), "--", "true")
		if code != 2 || !strings.Contains(errOut, "offline") {
			p.add("corepin exec --cpu %d: exit %d, %q", o, code, strings.TrimSpace(errOut))
		}
		said = strings.TrimSpace(errOut)
	}
	return p.result(name, fmt.Sprintf("online %s; exit 2: %s", online, said))
}

func (c *checker) isolcpus() checkResult {
	const name = "isolcpus"
	iso := sysList("isolated")
	if len(iso) == 0 {
		return failed(name, "no CPU in /sys/devices/system/cpu/isolated")
	}
	t := iso[len(iso)-1]
	self, _ := parseList(statusField("/proc/self/status", "Cpus_allowed_list"))
	r, err := c.runPinned(0, nil, "--cpu", strconv.Itoa(t))
	if err != nil {
		return failed(name, "%v", err)
	}
	res := c.compareExec(name, t, r)
	// On an isolated, nohz_full CPU corepin's own thread that forked the
	// command is the one other thing on it: its own, not others'.
	if _, errOut, code := c.corepinRun("exec", "--cpu", strconv.Itoa(t), "--", "true"); code != 0 || strings.Contains(errOut, "others took") || strings.Contains(errOut, "shared") {
		return failed(name, "corepin exec --cpu %d -- true: exit %d, want 0 and no word of sharing: %s", t, code, strings.TrimSpace(errOut))
	}
	if res.Status == statusOK {
		res.Evidence = fmt.Sprintf("isolated %s, inherited mask %s: %s; exec --cpu %d -- true: no sharing said", iso, self, res.Evidence, t)
	}
	return res
}

// irqAdvice checks that a per-CPU interrupt (arm64's arch_timer) is named
// as one and advises nothing: no tune moves it.
func (c *checker) irqAdvice() checkResult {
	const name = "irq-advice"
	online := sysList("online")
	t := online[len(online)-1]
	out, errOut, code := c.corepinRun("system", "show", "--cpus", strconv.Itoa(t))
	if code != 0 && code != 2 {
		return failed(name, "corepin system show --cpus %d: exit %d: %s", t, code, strings.TrimSpace(errOut))
	}
	var p problems
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "IRQs firing on target") && strings.Contains(line, "arch_timer") {
			p.add("the per-CPU timer is among the IRQs to move: %s", line)
		}
		if strings.Contains(line, "arch_timer") && strings.Contains(line, "on target:") && !strings.Contains(line, "per-CPU") {
			p.add("the per-CPU timer is not named as one: %s", line)
		}
	}
	if !strings.Contains(out, "arch_timer") {
		return skipped(name, "no arch_timer on the target in /proc/interrupts")
	}
	return p.result(name, fmt.Sprintf("system show --cpus %d names arch_timer per-CPU and advises nothing of it", t))
}

func (c *checker) numa() checkResult {
	const name = "numa"
	nodeCPUs := map[int]cpuList{}
	dirs, _ := filepath.Glob("/sys/devices/system/node/node[0-9]*")
	for _, d := range dirs {
		n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "node"))
		data, _ := os.ReadFile(filepath.Join(d, "cpulist"))
		nodeCPUs[n], _ = parseList(string(data))
	}
	if len(nodeCPUs) < 2 {
		return failed(name, "%d NUMA nodes in sysfs", len(nodeCPUs))
	}
	var p problems
	nodeOf := func(cpus cpuList) []int {
		var ns []int
		for n, l := range nodeCPUs {
			if cpus.intersects(l) {
				ns = append(ns, n)
			}
		}
		return ns
	}
	r, err := c.runPinned(0, nil, "--mode", "soft")
	if err != nil {
		return failed(name, "%v", err)
	}
	if r.reportErr != nil {
		return failed(name, "report: %v: %s", r.reportErr, r.stderr)
	}
	soft := r.report.Target.CPUs
	ns := nodeOf(soft)
	if len(ns) != 1 {
		p.add("soft target %s spans nodes %v", soft, ns)
	} else if r.report.Target.Node == nil || *r.report.Target.Node != ns[0] {
		p.add("soft target %s is in node %d, the report records node %s", soft, ns[0], optInt(r.report.Target.Node))
	}
	if !r.taskset.equal(soft) {
		p.add("soft target %s, taskset -p %s", soft, r.taskset)
	}
	cross, err := c.runPinned(0, nil, "--mode", "soft", "--cross-node")
	if err != nil {
		return failed(name, "--cross-node: %v", err)
	}
	if cn := nodeOf(cross.report.Target.CPUs); len(cn) < 2 {
		p.add("--cross-node soft target %s is in nodes %v", cross.report.Target.CPUs, cn)
	}
	text, _, _ := c.corepinRun("topo")
	if !strings.Contains(text, "SOCKET") || !strings.Contains(text, "NODE") {
		p.add("corepin topo's table has no SOCKET and NODE columns")
	}
	node := -1
	if len(ns) == 1 {
		node = ns[0]
	}
	return p.result(name, fmt.Sprintf("soft %s = node %d (taskset -p %s), --cross-node %s; topo shows sockets and nodes", soft, node, r.taskset, cross.report.Target.CPUs))
}

func (c *checker) lostBig() checkResult {
	const name = "lost-big"
	// The fastest CPUs by the kernel's own capacities.
	best, bestCPUs := -1, cpuList{}
	for _, id := range sysList("present") {
		s, ok := sysCPU(fmt.Sprintf("cpu%d/cpu_capacity", id))
		if !ok {
			return skipped(name, "CPU %d has no cpu_capacity", id)
		}
		n, _ := strconv.Atoi(s)
		switch {
		case n > best:
			best, bestCPUs = n, cpuList{id}
		case n == best:
			bestCPUs = append(bestCPUs, id)
		}
	}
	for _, id := range bestCPUs {
		if err := setOnline(id, false); err != nil {
			return failed(name, "taking CPU %d offline: %v", id, err)
		}
	}
	defer func() {
		for _, id := range bestCPUs {
			setOnline(id, true)
		}
	}()
	var p problems
	_, errOut, code := c.corepinRun("exec", "--target", "big", "--", "true")
	if code != 2 || !strings.Contains(errOut, "offline") {
		p.add("--target big with CPUs %s offline: exit %d, %q", bestCPUs, code, strings.TrimSpace(errOut))
	}
	_, lerr, lcode := c.corepinRun("exec", "-q", "--target", "little", "--", "true")
	if lcode != 0 {
		p.add("--target little: exit %d, %q", lcode, strings.TrimSpace(lerr))
	}
	return p.result(name, fmt.Sprintf("capacity %d on CPUs %s, taken offline: exit 2, %q; --target little still runs", best, bestCPUs, strings.TrimSpace(errOut)))
}

func (c *checker) unplug() checkResult {
	const name = "unplug"
	t := c.shape.unplug
	log := "/tmp/machine/unplug.log"
	r, err := c.runPinned(0, func(r *pinnedRun) {
		// The command runs on the target: the guest's unplugger may go.
		// Hold the run until the CPU is back, and a little longer.
		if err := os.WriteFile("/tmp/machine/unplug.go", nil, 0o644); err != nil {
			return
		}
		waitLine(c.ctx, log, "online", 2*time.Minute)
		time.Sleep(time.Second)
	}, "--cpu", strconv.Itoa(t))
	if err != nil {
		return failed(name, "%v", err)
	}
	events, _ := os.ReadFile(log)
	var p problems
	if !strings.Contains(string(events), "offline") {
		return failed(name, "CPU %d never went offline (%s)", t, log)
	}
	want := fmt.Sprintf("CPU %d went offline at", t)
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "the work ran elsewhere from then on") {
		p.add("the summary does not say %q: %q", want, strings.TrimSpace(r.stderr))
	}
	if r.code != 124 {
		p.add("exit %d, want 124 (the rule stopped holding during the run)", r.code)
	}
	if r.reportErr != nil || r.report.Watch == nil || r.report.Watch.Offline == nil {
		p.add("the report has no watch.target_offline (%v)", r.reportErr)
	} else if off := r.report.Watch.Offline; !off.CPUs.equal(cpuList{t}) {
		p.add("the report says CPUs %s went offline, not %d", off.CPUs, t)
	} else if b, a := off.Before, off.After; b.Running == 0 || a.Running == 0 || 5*b.OnTarget < 4*b.Running || a.OnTarget*b.Running >= b.OnTarget*a.Running {
		// The scheduler pushes tasks off a CPU it deactivates a moment
		// before the CPU leaves the online list, and the CPU comes back
		// 2 s later: most samples on target before, fewer after.
		p.add("residency before %+v, after %+v: want most on target before, fewer after", off.Before, off.After)
	}
	summary := strings.TrimSpace(r.stderr)
	if i := strings.Index(summary, "CPU "); i >= 0 {
		summary = summary[i:]
	}
	return p.result(name, fmt.Sprintf("exit %d; %q (guest log: %s)", r.code, summary, strings.ReplaceAll(strings.TrimSpace(string(events)), "\n", ", ")))
}

// waitLine waits until the file has a line starting with prefix.
func waitLine(ctx context.Context, path, prefix string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		data, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, prefix) {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// uclampOf is uclampset -p's view of pid.
func uclampOf(ctx context.Context, pid int) (min, max int, err error) {
	out, err := tool(ctx, "uclampset", "-p", strconv.Itoa(pid))
	if err != nil {
		return 0, 0, err
	}
	// "sh (115) util_clamp: min: 1024 max: 1024" (util-linux 2.38)
	i := strings.Index(out, "min:")
	if i < 0 {
		return 0, 0, fmt.Errorf("uclampset -p %d: unexpected output %q", pid, out)
	}
	if _, err := fmt.Sscanf(strings.ReplaceAll(out[i:], ",", ""), "min: %d max: %d", &min, &max); err != nil {
		return 0, 0, fmt.Errorf("uclampset -p %d: unexpected output %q", pid, out)
	}
	return min, max, nil
}

func (c *checker) uclamp() checkResult {
	const name = "uclamp"
	t, err := c.target()
	if err != nil {
		return failed(name, "%v", err)
	}
	var childMin, childMax int
	var childErr error
	ownClamps := map[int]string{}
	r, err := c.runPinned(0, func(r *pinnedRun) {
		childMin, childMax, childErr = uclampOf(c.ctx, r.childPID)
		for tid := range taskMasks(r.corepinPID) {
			// A realtime thread (the watcher runs at FIFO 1) gets the
			// kernel's sched_util_clamp_min_rt_default as its minimum.
			wantMin := 0
			if st := statFields(tid); len(st) > 38 && (st[38] == "1" || st[38] == "2") {
				data, _ := os.ReadFile("/proc/sys/kernel/sched_util_clamp_min_rt_default")
				wantMin, _ = strconv.Atoi(strings.TrimSpace(string(data)))
			}
			if lo, hi, err := uclampOf(c.ctx, tid); err == nil && (lo != wantMin || hi != 1024) {
				comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/comm", r.corepinPID, tid))
				st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", r.corepinPID, tid))
				f := strings.Fields(string(st))
				nice := "?"
				if len(f) > 18 {
					nice = f[18]
				}
				ownClamps[tid] = fmt.Sprintf("%d/%d (%s, nice %s, mask %s)", lo, hi, strings.TrimSpace(string(comm)), nice, taskMasks(r.corepinPID)[tid])
			}
		}
	}, "--cpu", strconv.Itoa(t))
	if err != nil {
		return failed(name, "%v", err)
	}
	var p problems
	if r.code != 0 || r.reportErr != nil {
		p.add("corepin exec: exit %d, report %v: %s", r.code, r.reportErr, strings.TrimSpace(r.stderr))
		return p.result(name, "")
	}
	lad := r.report.Ladder
	first := 0
	for _, st := range lad.Steps {
		if !strings.Contains(st.Asked, "fifo") && !strings.Contains(st.Asked, "rr:") {
			first = st.Step
			break
		}
	}
	if lad.AcceptedStep != first {
		p.add("ladder %s settled on step %d, its first non-realtime step is %d", lad.Name, lad.AcceptedStep, first)
	}
	u := r.report.Readback.Uclamp
	if !u.Supported || u.Min == nil || *u.Min != 1024 || u.Max == nil || *u.Max != 1024 {
		p.add("read-back uclamp %+v", u)
	}
	if childErr != nil || childMin != 1024 || childMax != 1024 {
		p.add("uclampset -p %d: %d/%d (%v)", r.childPID, childMin, childMax, childErr)
	}
	if len(ownClamps) > 0 {
		p.add("corepin's threads keep a clamp: %v", ownClamps)
	}
	if !r.report.Restore.OK {
		p.add("the report says the restore failed")
	}
	caps, _, _ := c.corepinRun("caps", "--json")
	var v capsView
	if json.Unmarshal([]byte(caps), &v) != nil || !v.Uclamp {
		p.add("caps does not say uclamp yes")
	}
	return p.result(name, fmt.Sprintf("ladder %s step %d, uclamp 1024/1024 read back and by uclampset -p %d; corepin's threads back at 0/1024; caps uclamp yes",
		lad.Name, lad.AcceptedStep, r.childPID))
}
