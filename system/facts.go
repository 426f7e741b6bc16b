// Package system owns the machine's performance condition around a
// measured CPU: it reads it (Read: frequency policies, boost, energy
// preference, idle states, interrupts, isolation, kernel knobs, thermal
// state), judges it for measuring on a target (Facts.Checks), changes it
// for a run (Plan, Tune), keeps the rest of the machine off the target
// (Shield), and puts back exactly what it found (Reset).
//
// Every change goes through a journal written durably before the change
// is made, so that a crash, a SIGKILL or a power cut leaves a record from
// which Reset restores the old values byte for byte. Files are read and
// written under a root folder (normally "/"), so tests run on fixture
// trees copied to a temporary folder.
package system

import (
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

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
	CPUs []CPU `json:"cpus"`
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
	Driver   string   `json:"driver"`
	Policies []Policy `json:"policies"`
	// Boost is the machine-wide boost or turbo switch, nil where there is
	// none.
	Boost *Boost `json:"boost"`
	// IntelPstate and AMDPstate are the drivers' status files ("active",
	// "passive", "guided"), empty where absent.
	IntelPstate string `json:"intel_pstate,omitempty"`
	AMDPstate   string `json:"amd_pstate,omitempty"`
}

// Policy is one cpufreq policy. Frequencies are in kHz, as sysfs gives them.
type Policy struct {
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

// CPU is what corepin read for one target CPU.
type CPU struct {
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

// Policy returns the policy that holds cpu, or nil.
func (c *CPUFreq) Policy(cpu int) *Policy {
	if c == nil {
		return nil
	}
	for i := range c.Policies {
		if c.Policies[i].CPUs.Contains(cpu) {
			return &c.Policies[i]
		}
	}
	return nil
}

// TargetPolicies returns the policies that hold a target CPU.
func (f *Facts) TargetPolicies() []*Policy {
	if f.CPUFreq == nil {
		return nil
	}
	var ps []*Policy
	for i := range f.CPUFreq.Policies {
		if !f.CPUFreq.Policies[i].CPUs.Intersect(f.Target).IsEmpty() {
			ps = append(ps, &f.CPUFreq.Policies[i])
		}
	}
	return ps
}
