package system

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

// Sysfs and procfs folders, relative to the root.
const (
	cpuDir     = "sys/devices/system/cpu"
	cpufreqDir = cpuDir + "/cpufreq"
	irqDir     = "proc/irq"
	thermalDir = "sys/class/thermal"
)

// reader reads small files under a root and keeps the names of those that
// exist but could not be read.
type reader struct {
	root       fsroot.Root
	unreadable []string
	// as, when set, are contents read in place of the files' (by path
	// relative to the root): the machine as it was before other tunes,
	// whose old values these are (see Session.tune).
	as map[string]string
}

func (r *reader) path(rel string) string { return r.root.Path(rel) }

// str returns a file's trimmed content; ok is false when it is missing or
// unreadable (the latter is remembered).
func (r *reader) str(rel string) (string, bool) {
	if v, ok := r.as[rel]; ok {
		return strings.TrimSpace(v), true
	}
	data, err := os.ReadFile(r.path(rel))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.unreadable = append(r.unreadable, fmt.Sprintf("%s: %v", rel, errors.Unwrap(err)))
		}
		return "", false
	}
	return strings.TrimSpace(string(data)), true
}

func (r *reader) int64(rel string) *int64 {
	s, ok := r.str(rel)
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

func (r *reader) int(rel string) *int {
	n := r.int64(rel)
	if n == nil {
		return nil
	}
	v := int(*n)
	return &v
}

func (r *reader) bool(rel string) *bool {
	n := r.int64(rel)
	if n == nil {
		return nil
	}
	v := *n != 0
	return &v
}

// list reads a CPU list; sysfs writes related_cpus with spaces ("0 1 2").
func (r *reader) list(rel string) (cpuset.Set, bool) {
	s, ok := r.str(rel)
	if !ok {
		return cpuset.Set{}, false
	}
	set, err := cpuset.Parse(strings.Join(strings.Fields(s), ","))
	if err != nil {
		return cpuset.Set{}, false
	}
	return set, true
}

// names lists the entries of dir that start with prefix, sorted by the
// number after it (policy0, policy4, policy7).
func (r *reader) names(dir, prefix string) []string {
	entries, err := os.ReadDir(r.path(dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e.Name(), prefix); ok {
			if _, err := strconv.Atoi(rest); err == nil {
				out = append(out, e.Name())
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		x, _ := strconv.Atoi(strings.TrimPrefix(a, prefix))
		y, _ := strconv.Atoi(strings.TrimPrefix(b, prefix))
		return x - y
	})
	return out
}

// Read reads the machine's performance condition under root for the
// target CPUs. Missing files are unknown facts, not errors; Read fails only
// when the root itself cannot be read.
func Read(root fsroot.Root, target cpuset.Set) (*evidence.Facts, error) {
	return readAs(root, target, nil)
}

// readAs is Read with the files named in as reading as their values there.
func readAs(root fsroot.Root, target cpuset.Set, as map[string]string) (*evidence.Facts, error) {
	if _, err := root.Stat(cpuDir); err != nil {
		return nil, fmt.Errorf("reading the machine's condition: %w", err)
	}
	r := &reader{root: root, as: as}
	f := &evidence.Facts{Root: root, Target: target}
	f.Online, _ = r.list(cpuDir + "/online")
	f.Isolated, _ = r.list(cpuDir + "/isolated")
	if s, ok := r.str(cpuDir + "/nohz_full"); ok && s != "(null)" {
		f.NohzFull, _ = r.list(cpuDir + "/nohz_full")
	}
	f.CPUFreq = r.cpufreq()
	f.IdleDriver, _ = r.str(cpuDir + "/cpuidle/current_driver")
	f.IdleGovernor, _ = r.str(cpuDir + "/cpuidle/current_governor")
	if f.IdleGovernor == "" {
		f.IdleGovernor, _ = r.str(cpuDir + "/cpuidle/current_governor_ro")
	}
	for _, c := range target.CPUs() {
		f.CPUs = append(f.CPUs, r.cpu(c, f))
	}
	f.IRQs = r.irqs(target)
	f.PerfMaxSampleRate = r.int("proc/sys/kernel/perf_event_max_sample_rate")
	f.ASLR = r.int("proc/sys/kernel/randomize_va_space")
	f.Irqbalance = r.irqbalance()
	f.Thermal, f.Cooling = r.thermal()
	f.Load = r.load()
	f.Journal = ReadJournalState(root, "")
	f.Unreadable = r.unreadable
	f.Checks = judge(f)
	return f, nil
}

// cpu reads one target CPU: online state, policy, EPB and idle states.
func (r *reader) cpu(id int, f *evidence.Facts) evidence.TargetCPU {
	dir := fmt.Sprintf("%s/cpu%d", cpuDir, id)
	c := evidence.TargetCPU{ID: id, Online: f.Online.Contains(id), Isolated: f.Isolated.Contains(id), NohzFull: f.NohzFull.Contains(id)}
	if p := f.CPUFreq.Policy(id); p != nil {
		c.Policy = p.Name
	}
	c.EPB = r.int(dir + "/power/energy_perf_bias")
	for _, s := range r.names(dir+"/cpuidle", "state") {
		sd := dir + "/cpuidle/" + s
		n, _ := strconv.Atoi(strings.TrimPrefix(s, "state"))
		st := evidence.IdleState{Index: n}
		st.Name, _ = r.str(sd + "/name")
		if l := r.int(sd + "/latency"); l != nil {
			st.LatencyUS = *l
		}
		if d := r.bool(sd + "/disable"); d != nil {
			st.Disabled = *d
		}
		c.Idle = append(c.Idle, st)
	}
	return c
}

// load reads the load average, the runnable threads and the uptime.
func (r *reader) load() evidence.Load {
	l := evidence.Load{At: time.Now()}
	if s, ok := r.str("proc/loadavg"); ok {
		for i, field := range strings.Fields(s) {
			if i < 3 {
				l.Avg[i], _ = strconv.ParseFloat(field, 64)
			}
		}
	}
	if s, ok := r.str("proc/stat"); ok {
		for _, line := range strings.Split(s, "\n") {
			if rest, ok := strings.CutPrefix(line, "procs_running "); ok {
				l.Runnable, _ = strconv.Atoi(strings.TrimSpace(rest))
			}
		}
	}
	if s, ok := r.str("proc/uptime"); ok {
		if fields := strings.Fields(s); len(fields) > 0 {
			l.UptimeS, _ = strconv.ParseFloat(fields[0], 64)
		}
	}
	return l
}

// irqbalance reports whether a process named irqbalance runs; nil when
// /proc lists no processes at all (a fixture without them).
func (r *reader) irqbalance() *bool {
	entries, err := os.ReadDir(r.path("proc"))
	if err != nil {
		return nil
	}
	found, any := false, false
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		any = true
		comm, err := os.ReadFile(r.path("proc/" + e.Name() + "/comm"))
		if err == nil && strings.TrimSpace(string(comm)) == "irqbalance" {
			found = true
			break
		}
	}
	if !any {
		return nil
	}
	return &found
}

// thermal reads the thermal zones and cooling devices.
func (r *reader) thermal() ([]evidence.ThermalZone, []evidence.CoolingDevice) {
	var zones []evidence.ThermalZone
	for _, name := range r.names(thermalDir, "thermal_zone") {
		z := evidence.ThermalZone{Name: name}
		z.Type, _ = r.str(thermalDir + "/" + name + "/type")
		if t := r.int64(thermalDir + "/" + name + "/temp"); t != nil {
			c := float64(*t) / 1000
			z.TempC = &c
		}
		zones = append(zones, z)
	}
	var devs []evidence.CoolingDevice
	for _, name := range r.names(thermalDir, "cooling_device") {
		d := evidence.CoolingDevice{Name: name}
		d.Type, _ = r.str(thermalDir + "/" + name + "/type")
		if v := r.int(thermalDir + "/" + name + "/cur_state"); v != nil {
			d.CurState = *v
		}
		if v := r.int(thermalDir + "/" + name + "/max_state"); v != nil {
			d.MaxState = *v
		}
		devs = append(devs, d)
	}
	return zones, devs
}
