package system

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results/evidence"
)

const (
	Text evidence.ChangeKind = "text" // trimmed text
	List evidence.ChangeKind = "list" // a CPU list
	Mask evidence.ChangeKind = "mask" // a hex CPU mask
)

// Plan turns a request into the writes that make it, in the order that
// works: the governor first (changing it resets a driver's tunables and,
// under intel_pstate, no_turbo), then boost and the energy preference,
// then min and max in the order that never puts min above max, then IRQs,
// idle states and kernel knobs. Values that already hold are left out.
//
// What the request asks for and the machine cannot do is refused, before
// anything is written, with each request and why: a governor the policy
// lacks, a frequency out of its range, and, on a machine without cpufreq
// (most VMs) or without a boost switch, a frequency, a governor or boost
// off asked for by name. What a tune does unasked (the performance
// governor at the highest frequency) is skipped there instead, and
// Skipped says so.
func Plan(f *evidence.Facts, req evidence.TuneRequest) ([]evidence.Change, error) {
	var cs []evidence.Change
	add := func(c evidence.Change) {
		if c.Kind == "" {
			c.Kind = Text
		}
		if !same(c.Kind, c.Was, c.Value) {
			cs = append(cs, c)
		}
	}
	if req.CPUs.IsEmpty() {
		return nil, fmt.Errorf("no target CPUs to tune")
	}
	policies := tunedPolicies(f, req)
	if why := unmet(f, req, policies); len(why) > 0 {
		return nil, fmt.Errorf("cannot tune as asked, nothing was changed: %s", strings.Join(why, "; "))
	}
	gov := req.Governor
	if gov == "" {
		gov = "performance"
	}
	for _, p := range policies {
		if !p.HasGovernor(gov) {
			return nil, fmt.Errorf("%s has no governor %q (it has %s)", p.Name, gov, strings.Join(p.Governors, ", "))
		}
		add(evidence.Change{Path: p.Dir + "/scaling_governor", Value: gov, Was: p.Governor, Why: "a governor that does not follow the load"})
	}
	if req.NoBoost && f.CPUFreq != nil {
		if b := f.CPUFreq.Boost; b != nil {
			value, was := "0", "1"
			if strings.HasSuffix(b.File, "no_turbo") {
				value, was = "1", "0"
			}
			if !b.On {
				was = value
			}
			add(evidence.Change{Path: b.File, Value: value, Was: was, Why: "boost off"})
		}
		for _, p := range policies {
			if p.Boost != nil {
				add(evidence.Change{Path: p.Dir + "/boost", Value: "0", Was: boolText(*p.Boost), Why: "boost off"})
			}
		}
	}
	for _, p := range policies {
		if p.EPP != "" && slices.Contains(p.EPPs, "performance") {
			add(evidence.Change{Path: p.Dir + "/energy_performance_preference", Value: "performance", Was: p.EPP, Why: "the hardware favours speed"})
		}
	}
	for _, p := range policies {
		freq, err := lockFrequency(p, req.Freq, req.NoBoost)
		if err != nil {
			return nil, err
		}
		lo := evidence.Change{Path: p.Dir + "/scaling_min_freq", Value: strconv.FormatInt(freq, 10), Was: optInt64(p.MinKHz), Why: "min = max: one frequency"}
		hi := evidence.Change{Path: p.Dir + "/scaling_max_freq", Value: lo.Value, Was: optInt64(p.MaxKHz), Why: "min = max: one frequency"}
		// The kernel refuses a min above the max (EINVAL): going up, raise
		// max first; going down, lower min first.
		if p.MaxKHz != nil && freq > *p.MaxKHz {
			add(hi)
			add(lo)
		} else {
			add(lo)
			add(hi)
		}
	}
	if req.IRQs {
		away := func(s cpuset.Set) cpuset.Set {
			if rest := s.Difference(req.CPUs); !rest.IsEmpty() {
				return rest
			}
			return f.Online.Difference(req.CPUs)
		}
		if f.Online.Difference(req.CPUs).IsEmpty() {
			return nil, fmt.Errorf("cannot move IRQs off CPUs %s: no other CPU is online", req.CPUs)
		}
		if d := f.IRQs.Default; d != nil {
			add(evidence.Change{Path: irqDir + "/default_smp_affinity", Value: away(*d).Mask(), Kind: Mask, Was: d.Mask(), Why: "new IRQs avoid the target"})
		}
		for _, q := range f.IRQs.OnTarget {
			if q.PerCPU != "" {
				continue // no affinity moves it (see irqChecks)
			}
			add(evidence.Change{Path: irqDir + "/" + q.Number + "/smp_affinity_list", Value: away(q.Affinity).String(), Kind: List, Was: q.Affinity.String(),
				Why: "IRQ " + q.Number + " off the target", BestEffort: true, What: irqLabel(q)})
		}
	}
	if req.Idle {
		for _, c := range f.CPUs {
			keep := shallowIdle(c.Idle)
			for _, s := range c.Idle {
				if s.Index > keep {
					add(evidence.Change{Path: fmt.Sprintf("%s/cpu%d/cpuidle/state%d/disable", cpuDir, c.ID, s.Index), Value: "1", Was: boolText(s.Disabled),
						Why: fmt.Sprintf("no %s (%d µs exit latency)", s.Name, s.LatencyUS)})
				}
			}
		}
	}
	if r := f.PerfMaxSampleRate; r != nil && *r > 1 {
		add(evidence.Change{Path: "proc/sys/kernel/perf_event_max_sample_rate", Value: "1", Was: strconv.Itoa(*r), Why: "perf sampling interrupts kept rare"})
	}
	return cs, nil
}

// tunedPolicies are the policies a tune of req sets: the target's, or
// with AllPolicies every one.
func tunedPolicies(f *evidence.Facts, req evidence.TuneRequest) []*evidence.FreqPolicy {
	if !req.AllPolicies || f.CPUFreq == nil {
		return f.TargetPolicies()
	}
	var out []*evidence.FreqPolicy
	for i := range f.CPUFreq.Policies {
		out = append(out, &f.CPUFreq.Policies[i])
	}
	return out
}

// noCpufreq says why the request's policies are none: no cpufreq driver
// at all, or none for the target; "" when there are policies.
func noCpufreq(f *evidence.Facts, policies []*evidence.FreqPolicy, req evidence.TuneRequest) string {
	switch {
	case len(policies) > 0:
		return ""
	case f.CPUFreq == nil || len(f.CPUFreq.Policies) == 0:
		return "this kernel has no cpufreq driver (no policy under " + cpufreqDir + "): the frequency can be neither set nor read, as in most VMs and on fixed clocks"
	}
	return fmt.Sprintf("no cpufreq policy covers CPUs %s", req.CPUs)
}

// unmet lists the requests given by name that the machine cannot honour,
// each with why.
func unmet(f *evidence.Facts, req evidence.TuneRequest, policies []*evidence.FreqPolicy) []string {
	var out []string
	if why := noCpufreq(f, policies, req); why != "" {
		if req.Freq != "" {
			out = append(out, fmt.Sprintf("--freq %s: %s", req.Freq, why))
		}
		if req.Governor != "" {
			out = append(out, fmt.Sprintf("--governor %s: %s", req.Governor, why))
		}
		if req.AllPolicies {
			out = append(out, "--all-policies: "+why)
		}
		if req.NoBoost {
			out = append(out, "--no-boost: "+why)
		}
		return out
	}
	if req.NoBoost && f.CPUFreq.Boost == nil && !slices.ContainsFunc(policies, func(p *evidence.FreqPolicy) bool { return p.Boost != nil }) {
		out = append(out, "--no-boost: this machine has no boost switch (no "+cpufreqDir+"/boost, intel_pstate/no_turbo or policy boost file), so boost can be neither turned off nor known to be off")
	}
	return out
}

// Skipped says what a tune of req leaves out unasked because the machine
// cannot do it: the performance governor and the frequency lock, where
// there is no cpufreq.
func Skipped(f *evidence.Facts, req evidence.TuneRequest) []string {
	if why := noCpufreq(f, tunedPolicies(f, req), req); why != "" && req.Freq == "" && req.Governor == "" {
		return []string{"the performance governor and min = max at the highest frequency: " + why}
	}
	return nil
}

// lockFrequency returns the frequency (kHz) that min and max are set to.
func lockFrequency(p *evidence.FreqPolicy, spec string, noBoost bool) (int64, error) {
	if p.HWMaxKHz == nil {
		return 0, fmt.Errorf("%s: no cpuinfo_max_freq to choose a frequency from", p.Name)
	}
	hw := *p.HWMaxKHz
	var f int64
	switch {
	case spec == "" || spec == "max":
		f = hw
		if noBoost && p.BaseKHz != nil && p.Driver == "intel_pstate" {
			// Without turbo, intel_pstate caps max at the base frequency.
			f = *p.BaseKHz
		}
	case spec == "base":
		if p.BaseKHz == nil {
			return 0, fmt.Errorf("%s: driver %s gives no base frequency; give --freq max, NN%% or kHz", p.Name, p.Driver)
		}
		f = *p.BaseKHz
	case strings.HasSuffix(spec, "%"):
		pct, err := strconv.ParseFloat(strings.TrimSuffix(spec, "%"), 64)
		if err != nil || pct <= 0 || pct > 100 {
			return 0, fmt.Errorf("--freq %q: want a percentage in (0, 100]", spec)
		}
		f = int64(float64(hw) * pct / 100)
	default:
		n, err := strconv.ParseInt(spec, 10, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("--freq %q: want max, base, NN%% or a frequency in kHz", spec)
		}
		f = n
	}
	if p.HWMinKHz != nil && f < *p.HWMinKHz {
		return 0, fmt.Errorf("%s: %d kHz is below the hardware minimum %d kHz", p.Name, f, *p.HWMinKHz)
	}
	if f > hw {
		return 0, fmt.Errorf("%s: %d kHz is above the hardware maximum %d kHz", p.Name, f, hw)
	}
	// A driver with a frequency table holds only its own steps: take the
	// highest one not above the request.
	if len(p.Available) > 0 {
		best := int64(-1)
		for _, a := range p.Available {
			if a <= f && a > best {
				best = a
			}
		}
		if best < 0 {
			best = slices.Min(p.Available)
		}
		f = best
	}
	return f, nil
}

// same compares two values as the kernel means them.
func same(kind evidence.ChangeKind, a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch kind {
	case List:
		x, err1 := cpuset.Parse(strings.Join(strings.Fields(a), ","))
		y, err2 := cpuset.Parse(strings.Join(strings.Fields(b), ","))
		if err1 == nil && err2 == nil {
			return x.Equal(y)
		}
	case Mask:
		x, err1 := cpuset.ParseMask(a)
		y, err2 := cpuset.ParseMask(b)
		if err1 == nil && err2 == nil {
			return x.Equal(y)
		}
	}
	return a == b
}

func boolText(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func optInt64(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}
