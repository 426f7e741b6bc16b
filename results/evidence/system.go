package evidence

import (
	"fmt"
	"strings"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// RunFacts are the facts that travel with a run's results: the machine's
// condition at the start and at the end, and what was tuned for the run.
type RunFacts struct {
	Start *Facts `json:"start"`
	End   *Facts `json:"end"`
	Tuned *Tuned `json:"tuned,omitempty"`
}

// Tuned is a tune made for one run and undone after it.
type Tuned struct {
	Request TuneRequest   `json:"request"`
	Result  *TuneResult   `json:"result"`
	Shield  *ShieldReport `json:"shield,omitempty"`
	// Reset is what the tune's Undo put back; nil until it ran.
	Reset *ResetReport `json:"reset,omitempty"`
}

// Check is one line of the judgement: a fact, whether it is good for
// measuring on the target, and why.
type Check struct {
	Item  string `json:"item"`
	Value string `json:"value"`
	Good  bool   `json:"good"`
	// Important checks decide whether the machine counts as tuned; the
	// others are advice.
	Important bool   `json:"important"`
	Why       string `json:"why"`
}

// Facts is what corepin read about the machine's performance condition,
// for a target set of CPUs. Absent values are unknown: the file was not
// there or could not be read (see Unreadable).
type Facts struct {
	Root     fsroot.Root `json:"root"`
	Target   cpuset.Set  `json:"target"`
	Online   cpuset.Set  `json:"online"`
	Isolated cpuset.Set  `json:"isolated"`  // isolcpus=
	NohzFull cpuset.Set  `json:"nohz_full"` // nohz_full=

	// CPUFreq is nil where the kernel has no cpufreq driver (a VM, a
	// board with a fixed clock).
	CPUFreq *CPUFreq `json:"cpufreq"`
	// CPUs holds the target CPUs: online state, idle states, EPB.
	CPUs []TargetCPU `json:"cpus"`
	// IdleDriver is cpuidle's current driver ("none" where there is none).
	IdleDriver   string `json:"idle_driver,omitempty"`
	IdleGovernor string `json:"idle_governor,omitempty"`

	IRQs IRQs `json:"irqs"`

	PerfMaxSampleRate *int  `json:"perf_event_max_sample_rate"`
	ASLR              *int  `json:"aslr"` // randomize_va_space: 2 is full
	Irqbalance        *bool `json:"irqbalance_running"`

	Thermal []ThermalZone   `json:"thermal_zones"`
	Cooling []CoolingDevice `json:"cooling_devices"`

	Load Load `json:"load"`

	// Journal is what corepin's journal under the root said when the
	// facts were read: tunes left by processes that ended, shields that
	// are up and whether the reader runs inside one; nil without a
	// journal.
	Journal *JournalState `json:"journal,omitempty"`

	// Checks judge the facts for measuring on the target.
	Checks []Check `json:"checks"`

	// Unreadable lists files that exist but could not be read, with the
	// reason (an unprivileged user cannot read some of them).
	Unreadable []string `json:"unreadable,omitempty"`
}

// CPUFreq is the frequency-scaling state: the driver and each policy (a
// group of CPUs that share one clock, listed in related_cpus).
type CPUFreq struct {
	Driver   string       `json:"driver"`
	Policies []FreqPolicy `json:"policies"`
	// Boost is the machine-wide boost or turbo switch, nil where there is
	// none.
	Boost *Boost `json:"boost"`
	// IntelPstate and AMDPstate are the drivers' status files ("active",
	// "passive", "guided"), empty where absent.
	IntelPstate string `json:"intel_pstate,omitempty"`
	AMDPstate   string `json:"amd_pstate,omitempty"`
}

// FreqPolicy is one cpufreq policy. Frequencies are in kHz, as sysfs gives them.
type FreqPolicy struct {
	Name      string     `json:"name"` // policy0
	Dir       string     `json:"dir"`  // relative to the root
	CPUs      cpuset.Set `json:"related_cpus"`
	Affected  cpuset.Set `json:"affected_cpus"`
	Driver    string     `json:"driver"`
	Governor  string     `json:"governor"`
	Governors []string   `json:"available_governors"`
	CurKHz    *int64     `json:"cur_khz"`
	MinKHz    *int64     `json:"min_khz"`
	MaxKHz    *int64     `json:"max_khz"`
	HWMinKHz  *int64     `json:"hw_min_khz"`
	HWMaxKHz  *int64     `json:"hw_max_khz"`
	// BaseKHz is the guaranteed (non-boost) frequency where the driver
	// says it: intel_pstate's base_frequency, amd-pstate's nominal one.
	BaseKHz   *int64  `json:"base_khz"`
	Available []int64 `json:"available_khz,omitempty"`
	// EPP is the energy-performance preference, "" where absent.
	EPP  string   `json:"epp,omitempty"`
	EPPs []string `json:"available_epp,omitempty"`
	// Boost is the policy's own boost switch (newer kernels), nil where
	// absent.
	Boost *bool `json:"boost,omitempty"`
}

// Boost is a machine-wide boost or turbo switch.
type Boost struct {
	File string `json:"file"` // relative to the root
	On   bool   `json:"on"`
}

// TargetCPU is what corepin read for one target CPU.
type TargetCPU struct {
	ID       int         `json:"id"`
	Online   bool        `json:"online"`
	Policy   string      `json:"policy,omitempty"`
	EPB      *int        `json:"epb,omitempty"` // energy_perf_bias: 0 performance … 15 powersave
	Idle     []IdleState `json:"idle_states,omitempty"`
	Isolated bool        `json:"isolated"`
	NohzFull bool        `json:"nohz_full"`
}

// IdleState is one cpuidle state of a CPU.
type IdleState struct {
	Index     int    `json:"index"`
	Name      string `json:"name"`
	LatencyUS int    `json:"latency_us"`
	Disabled  bool   `json:"disabled"`
}

// IRQs is the interrupt routing as it concerns the target.
type IRQs struct {
	// Default is /proc/irq/default_smp_affinity, the mask new IRQs get.
	Default *cpuset.Set `json:"default_affinity"`
	// OnTarget lists the IRQs whose affinity includes a target CPU.
	OnTarget []IRQ `json:"on_target"`
	Total    int   `json:"total"` // IRQs with an affinity file
}

// IRQ is one interrupt line.
type IRQ struct {
	Number   string     `json:"irq"`
	Affinity cpuset.Set `json:"affinity"`
	Name     string     `json:"name,omitempty"` // from /proc/interrupts
	// TargetCount is how many times it fired on the target CPUs since
	// boot (from /proc/interrupts).
	TargetCount uint64 `json:"target_count"`
	// PerCPU says why the IRQ is a per-CPU interrupt (one line for an
	// interrupt every CPU has of its own, as arm64's arch_timer): it fires
	// on each CPU and no affinity moves it. "" for an IRQ that may move.
	PerCPU string `json:"per_cpu,omitempty"`
}

// ThermalZone is a temperature sensor.
type ThermalZone struct {
	Name  string   `json:"name"`
	Type  string   `json:"type"`
	TempC *float64 `json:"temp_c"`
}

// CoolingDevice is something the thermal framework throttles; cur_state
// above zero means it is throttling now.
type CoolingDevice struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	CurState int    `json:"cur_state"`
	MaxState int    `json:"max_state"`
}

// Load is how busy the machine was when it was read.
type Load struct {
	At       time.Time  `json:"at"`
	Avg      [3]float64 `json:"loadavg"`
	Runnable int        `json:"runnable_threads"` // procs_running of /proc/stat, the reader included
	UptimeS  float64    `json:"uptime_s"`
}

// Op is what an entry undoes.
type Op string

const (
	OpWrite    Op = "write"    // a file: put Old back
	OpMkdir    Op = "mkdir"    // a cgroup corepin created: remove it
	OpMove     Op = "move"     // a task moved between cgroups: move it back
	OpAffinity Op = "affinity" // a thread's CPU mask: set Old back
	OpControl  Op = "control"  // a controller enabled in cgroup.subtree_control: disable it
)

// Entry is one change and what it replaced.
type Entry struct {
	Op   Op         `json:"op"`
	Path string     `json:"path"` // relative to the root
	Kind ChangeKind `json:"kind,omitempty"`
	// Old is the exact content before the change (for a move: the cgroup
	// file the task came from; for an affinity: the CPU list).
	Old string `json:"old"`
	New string `json:"new"`
	// TID and TaskStart name a task for moves and affinities.
	TID       int    `json:"tid,omitempty"`
	TaskStart uint64 `json:"task_start,omitempty"`
	// Mask is a moved task's CPU list before the move, set back after it
	// returns (kernels before 6.2 forget a task's own mask on a move).
	Mask string `json:"mask,omitempty"`
	// Relied marks a value another layer's tune set and this layer's tune
	// would have set too: nothing was written for it, and Old is the value
	// before any tune, which the last layer that relies on it puts back.
	Relied bool `json:"relied,omitempty"`
}

// TuneRequest says what a tune changes. The zero value (with a target) sets
// the performance governor, locks the target's policies at their highest
// frequency, sets the energy preference to performance and lowers
// perf_event_max_sample_rate; the flags add the rest.
type TuneRequest struct {
	CPUs cpuset.Set `json:"cpus"` // the target
	// AllPolicies tunes every cpufreq policy, not only the target's.
	AllPolicies bool `json:"all_policies"`
	// Freq is where min and max are locked: "max" (the default, also
	// for ""), "base", "NN%" of the hardware maximum, or a frequency in
	// kHz.
	Freq string `json:"freq"`
	// Governor replaces "performance" (the default, also for "").
	Governor string `json:"governor"`
	NoBoost  bool   `json:"no_boost"` // turn boost/turbo off
	IRQs     bool   `json:"irqs"`     // move IRQs off the target, the default affinity too
	Idle     bool   `json:"idle"`     // disable the target's deep idle states
	// Shield moves the rest of the machine off the target with a cpuset
	// (see ShieldReport); system.Plan ignores it.
	Shield bool `json:"shield"`
}

// ChangeKind says how a value is compared when it is read back.
type ChangeKind string

// Change is one write that a tune makes.
type Change struct {
	Path  string     `json:"path"` // relative to the root
	Value string     `json:"value"`
	Kind  ChangeKind `json:"kind"`
	Why   string     `json:"why"`
	// Was is the value the facts showed, for --dry-run; the journal keeps
	// the exact bytes read just before the write.
	Was string `json:"was"`
	// BestEffort changes (IRQs: some cannot move) are reported when the
	// kernel refuses them, and the tune goes on.
	BestEffort bool `json:"best_effort,omitempty"`
	// What names, in words, what the file sets where its path does not
	// say it to a person: "IRQ 0 (timer)".
	What string `json:"what,omitempty"`
}

// ResetReport is what a reset put back and what it could not.
type ResetReport struct {
	Restored []Entry        `json:"restored"`
	Failed   []RestoreError `json:"failed"`
	// Journal is the journal's path, still there when something failed.
	Journal string `json:"journal"`
	// Running lists the layers left alone because their process still
	// runs: a run with --tune puts its own changes back when it ends.
	Running []string `json:"running,omitempty"`
	// Kept are the values left as they are because another layer still
	// relies on them (a running corepin's tune, or a system tune that
	// stands until reset): that layer puts them back when it is undone.
	Kept []Entry `json:"kept,omitempty"`
}

// RestoreError is an entry that could not be put back; the journal keeps
// it for another reset.
type RestoreError struct {
	Entry Entry  `json:"entry"`
	Err   string `json:"error"`
	// Cause is the error itself, errno included, for errors.Is on the
	// live machine; run.json keeps only its text.
	Cause error `json:"-"`
}

func (e RestoreError) Error() string {
	return fmt.Sprintf("putting back %s %s: %s", e.Entry.Op, e.Entry.Path, e.Err)
}

func (e RestoreError) Unwrap() error { return e.Cause }

// ShieldReport says what a shield did: which cgroup took the rest of the
// machine, how many tasks moved, which could not, and how busy those kept
// the target during the run.
//
// corepin shields the way cset shield does on both hierarchies: the rest of
// the machine goes to a complementary cpuset (the target's CPUs taken
// out), while corepin itself stays where it was, so that its own threads
// (the watcher, the sampler) still run on the other CPUs of the same
// process and the work it starts on the target inherits a cpuset that
// allows it. User threads that no cgroup move reaches (tasks in other
// cgroups) have their own CPU mask narrowed instead. Kernel threads are
// left alone, as cset shield does by default: moving them can change their
// masks for good (a workqueue rescuer follows its pool, a kernel before 6.2
// drops the offline CPUs of a mask it is given back), and corepin restores
// exactly or not at all. Their time on the target is in OutsideBusyPct.
//
// Other corepins that run now are left where they are, with everything
// of their runs (see CorepinRun): moved into the shield, a corepin could
// no longer put its work on its target, and the rest of its runs would
// be lost.
type ShieldReport struct {
	Hierarchy string     `json:"hierarchy"` // "cgroup v1 cpuset" or "cgroup v2"
	Cgroup    string     `json:"cgroup"`    // the complementary cgroup, relative to the root
	CPUs      cpuset.Set `json:"cpus"`      // the shielded target
	Others    cpuset.Set `json:"others"`    // where the rest of the machine runs
	Moved     int        `json:"moved"`     // tasks (v1) or processes (v2) moved
	Narrowed  int        `json:"narrowed"`  // threads whose own mask was narrowed
	// Unmovable are the threads still allowed on the target (per-CPU
	// kernel threads, tasks pinned to it).
	Unmovable []Task `json:"unmovable"`
	// Left are the corepins that ran when the shield went up, left in
	// place with their runs; their threads that may use the target are
	// among Unmovable.
	Left []CorepinRun `json:"left_in_place,omitempty"`
	// OutsideBusyPct is the CPU time the unmovable threads used during
	// the run, as a percentage of its length: an upper bound of the
	// target's time taken by tasks outside the run. Nil until the end.
	OutsideBusyPct *float64 `json:"outside_busy_pct"`
	DurationS      float64  `json:"duration_s"`
}

// Task is a thread the shield could not move off the target.
type Task struct {
	TID  int    `json:"tid"`
	Name string `json:"name"`
	CPUs string `json:"cpus"`
	Why  string `json:"why"`
}

// CorepinRun is a corepin that ran when a shield went up, and that the
// shield left where it was with its run: its descendants (the run's
// tree), its guard and the processes of its run cgroups.
type CorepinRun struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
	// How lists what showed it is a corepin that runs: "its guard", "the
	// journal", "its run cgroup".
	How []string `json:"found_by"`
	// Processes counts the processes left in place for it, itself
	// included.
	Processes int `json:"processes"`
}

// JournalState is what the machine's journal says when corepin looks: the
// tunes it holds, among them those whose process has ended (the machine
// stays tuned until a reset), and the shields that are up, with whether
// the process that looks runs inside one. Every corepin command says on
// stderr what of it matters (Warnings), and a run records it in run.json
// with the machine's other facts (Facts.Journal).
type JournalState struct {
	Journal string      `json:"journal"`
	Tunes   []TuneLayer `json:"tunes,omitempty"`
	Shields []ShieldUp  `json:"shields,omitempty"`
	// Error says why the journal cannot be used: a reset would refuse it
	// for the same reason.
	Error string `json:"error,omitempty"`
}

// TuneLayer is one process's changes that the journal holds.
type TuneLayer struct {
	Command string    `json:"command"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Changes int       `json:"changes"`
	// Running says that its process still runs, and puts its changes
	// back when it ends; a layer whose process has ended stays until
	// corepin system reset.
	Running bool `json:"running"`
}

// ShieldUp is a shield that is up: the cgroup corepin made for the rest of
// the machine, with the CPUs it keeps for the work.
type ShieldUp struct {
	Cgroup string     `json:"cgroup"` // relative to the root
	CPUs   cpuset.Set `json:"cpus"`   // shielded: the online CPUs the cgroup leaves out
	Others cpuset.Set `json:"others"` // the cgroup's CPUs, as it reads now
	TuneLayer
	// Inside says that the process that read the journal runs in the
	// shield's cgroup: it may use only Others, and the target it
	// measures on is not the shielded CPUs.
	Inside bool `json:"inside"`
}

// Done is a change that was made and read back.
type Done struct {
	Change
	Old      string `json:"old"`
	ReadBack string `json:"read_back"`
}

// Refusal is a best-effort change the kernel refused (an IRQ that cannot
// move); nothing was changed for it.
type Refusal struct {
	Change
	Error string `json:"error"`
	// Errno is the name of the errno the kernel refused the write with
	// ("EIO"); "" when it took the write but the value did not hold.
	Errno string `json:"errno,omitempty"`
}

// TuneResult is what a tune did.
type TuneResult struct {
	Done    []Done    `json:"done"`
	Refused []Refusal `json:"refused"`
	// Relied are the values this tune asks for that another corepin's
	// tune had set already: nothing was written for them, and they are
	// put back only when the last tune that relies on them is undone.
	Relied []Done `json:"relied,omitempty"`
	// Rollback is set when the tune failed halfway and undid itself.
	Rollback *ResetReport `json:"rollback,omitempty"`
	// Skipped says what the tune left out unasked because the machine
	// cannot do it (see system.Skipped).
	Skipped []string `json:"skipped,omitempty"`
}

// Line is one labelled fact, for a report's facts table.
type Line struct{ Label, Value string }

// Lines summarises the run's facts: the judgement, the important facts at
// the start, the load at the start and the end, and what was tuned and
// put back.
func (r *RunFacts) Lines() []Line {
	if r == nil || r.Start == nil {
		return nil
	}
	s := r.Start
	var out []Line
	var bad []string
	for _, c := range s.Checks {
		if c.Important && !c.Good {
			bad = append(bad, c.Item)
		}
	}
	verdict := "tuned for measuring on CPUs " + s.Target.String()
	if len(bad) > 0 {
		verdict = "not tuned: " + strings.Join(bad, ", ")
	}
	out = append(out, Line{"Machine", verdict})
	if s.CPUFreq == nil {
		out = append(out, Line{"Frequency", "no cpufreq: not controllable here"})
	}
	for _, p := range s.TargetPolicies() {
		v := fmt.Sprintf("%s %s, min %s max %s", p.Driver, p.Governor, MHz(p.MinKHz), MHz(p.MaxKHz))
		if p.EPP != "" {
			v += ", EPP " + p.EPP
		}
		out = append(out, Line{"Frequency " + p.Name, v})
	}
	if s.CPUFreq != nil && s.CPUFreq.Boost != nil {
		out = append(out, Line{"Boost", OnOff(s.CPUFreq.Boost.On)})
	}
	for _, c := range s.Checks {
		if strings.HasPrefix(c.Item, "IRQs") || c.Item == "isolated" || c.Item == "aslr" || strings.Contains(c.Item, " idle ") {
			out = append(out, Line{c.Item, c.Value})
		}
	}
	load := func(f *Facts) string {
		return fmt.Sprintf("%.2f %.2f %.2f, %d runnable", f.Load.Avg[0], f.Load.Avg[1], f.Load.Avg[2], f.Load.Runnable)
	}
	l := "start " + load(s)
	if r.End != nil {
		l += "; end " + load(r.End)
	}
	out = append(out, Line{"Load", l + fmt.Sprintf("; up %.0f s", s.Load.UptimeS)})
	if t := r.Tuned; t != nil {
		out = append(out, t.lines()...)
	}
	return out
}

// lines says what the tune changed and put back, and what its shield did.
func (t *Tuned) lines() []Line {
	var out []Line
	if t.Result != nil {
		v := fmt.Sprintf("%d changes", len(t.Result.Done))
		if n := len(t.Result.Refused); n > 0 {
			v += fmt.Sprintf(", %d refused by the kernel", n)
		}
		if t.Reset != nil {
			v += fmt.Sprintf("; put back %d", len(t.Reset.Restored))
			if n := len(t.Reset.Failed); n > 0 {
				v += fmt.Sprintf(", %d NOT (still in %s)", n, t.Reset.Journal)
			}
		}
		out = append(out, Line{"Tuned for the run", v})
	}
	if sh := t.Shield; sh != nil {
		v := fmt.Sprintf("%s, %d moved, %d narrowed, %d left on the target", sh.Hierarchy, sh.Moved, sh.Narrowed, len(sh.Unmovable))
		if sh.OutsideBusyPct != nil {
			v += fmt.Sprintf(" (using at most %.2f%% of it)", *sh.OutsideBusyPct)
		}
		out = append(out, Line{"Shield", v})
	}
	return out
}
