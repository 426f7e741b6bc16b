package system

import (
	"strconv"
	"strings"

	"corepin.dev/corepin/results/evidence"
)

// cpufreq reads the cpufreq policies under sys/devices/system/cpu/cpufreq,
// or returns nil where there are none.
func (r *reader) cpufreq() *evidence.CPUFreq {
	names := r.names(cpufreqDir, "policy")
	if len(names) == 0 {
		return nil
	}
	c := &evidence.CPUFreq{}
	for _, name := range names {
		p := r.policy(name)
		if c.Driver == "" {
			c.Driver = p.Driver
		}
		c.Policies = append(c.Policies, p)
	}
	c.IntelPstate, _ = r.str(cpuDir + "/intel_pstate/status")
	c.AMDPstate, _ = r.str(cpuDir + "/amd_pstate/status")
	switch {
	case c.IntelPstate == "active" || c.IntelPstate == "passive":
		// intel_pstate's switch says the opposite: 1 means turbo off.
		if noTurbo := r.bool(cpuDir + "/intel_pstate/no_turbo"); noTurbo != nil {
			c.Boost = &evidence.Boost{File: cpuDir + "/intel_pstate/no_turbo", On: !*noTurbo}
		}
	default:
		if on := r.bool(cpufreqDir + "/boost"); on != nil {
			c.Boost = &evidence.Boost{File: cpufreqDir + "/boost", On: *on}
		}
	}
	return c
}

func (r *reader) policy(name string) evidence.FreqPolicy {
	dir := cpufreqDir + "/" + name
	p := evidence.FreqPolicy{Name: name, Dir: dir}
	p.CPUs, _ = r.list(dir + "/related_cpus")
	p.Affected, _ = r.list(dir + "/affected_cpus")
	p.Driver, _ = r.str(dir + "/scaling_driver")
	p.Governor, _ = r.str(dir + "/scaling_governor")
	if s, ok := r.str(dir + "/scaling_available_governors"); ok {
		p.Governors = strings.Fields(s)
	}
	p.CurKHz = r.int64(dir + "/scaling_cur_freq")
	p.MinKHz = r.int64(dir + "/scaling_min_freq")
	p.MaxKHz = r.int64(dir + "/scaling_max_freq")
	p.HWMinKHz = r.int64(dir + "/cpuinfo_min_freq")
	p.HWMaxKHz = r.int64(dir + "/cpuinfo_max_freq")
	p.BaseKHz = r.int64(dir + "/base_frequency")
	if p.BaseKHz == nil {
		p.BaseKHz = r.int64(dir + "/amd_pstate_nominal_freq")
	}
	if s, ok := r.str(dir + "/scaling_available_frequencies"); ok {
		for _, f := range strings.Fields(s) {
			if n, err := strconv.ParseInt(f, 10, 64); err == nil {
				p.Available = append(p.Available, n)
			}
		}
	}
	p.EPP, _ = r.str(dir + "/energy_performance_preference")
	if s, ok := r.str(dir + "/energy_performance_available_preferences"); ok {
		p.EPPs = strings.Fields(s)
	}
	p.Boost = r.bool(dir + "/boost")
	return p
}
