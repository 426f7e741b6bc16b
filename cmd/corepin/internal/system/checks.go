package system

import (
	"fmt"
	"strings"

	"corepin.dev/corepin/results/evidence"
)

// judge judges the facts for measuring on the target, line by line, in
// the spirit of pyperf's "system show".
func judge(f *evidence.Facts) []evidence.Check {
	var cs []evidence.Check
	add := func(item, value string, good, important bool, why string) {
		cs = append(cs, evidence.Check{Item: item, Value: value, Good: good, Important: important, Why: why})
	}
	for _, c := range f.CPUs {
		if !c.Online {
			add(fmt.Sprintf("cpu%d online", c.ID), "no", false, true, "the target CPU is offline")
		}
	}
	if f.CPUFreq == nil {
		add("cpufreq", "none", false, false, "this kernel has no cpufreq driver: the frequency can neither be read nor locked (a VM or a fixed clock); nothing to tune")
	} else {
		cs = append(cs, freqChecks(f)...)
	}
	cs = append(cs, idleChecks(f)...)
	isolated := !f.Target.IsEmpty() && f.Target.IsSubsetOf(f.Isolated)
	why := "other tasks may run on the target; corepin run --shield moves them off for the run"
	if isolated {
		why = "isolcpus keeps other tasks off the target"
	}
	add("isolated", evidence.OrNone(f.Isolated.String()), isolated, false, why)
	if !f.NohzFull.IsEmpty() || isolated {
		nohz := f.Target.IsSubsetOf(f.NohzFull)
		why := "the scheduler tick still interrupts the target"
		if nohz {
			why = "no scheduler tick on the target while one task runs"
		}
		add("nohz_full", evidence.OrNone(f.NohzFull.String()), nohz, false, why)
	}
	cs = append(cs, irqChecks(f)...)
	if f.PerfMaxSampleRate != nil {
		r := *f.PerfMaxSampleRate
		add("perf_event_max_sample_rate", fmt.Sprint(r), r <= 1, false,
			"perf sampling interrupts steal time from the measured thread at up to this rate; 1 keeps them rare")
	}
	if f.ASLR != nil {
		good := *f.ASLR == 2
		why := "full address-space randomisation, as in production"
		if !good {
			why = "ASLR is not full (2): results depend on one memory layout; sysctl kernel.randomize_va_space=2"
		}
		add("aslr", fmt.Sprint(*f.ASLR), good, false, why)
	}
	cs = append(cs, thermalChecks(f)...)
	return cs
}

func freqChecks(f *evidence.Facts) []evidence.Check {
	var cs []evidence.Check
	add := func(item, value string, good, important bool, why string) {
		cs = append(cs, evidence.Check{Item: item, Value: value, Good: good, Important: important, Why: why})
	}
	for _, p := range f.TargetPolicies() {
		name := p.Name + " (CPUs " + p.CPUs.String() + ")"
		good := p.Governor == "performance" || (p.Governor == "userspace" && p.Locked())
		why := "the governor changes the frequency with the load"
		if good {
			why = "the governor does not lower the frequency under load"
		}
		add(name+" governor", p.Governor, good, true, why)
		locked := p.Locked()
		why = "the frequency may move between min and max"
		if locked {
			why = "min = max: one frequency"
		}
		add(name+" frequency", fmt.Sprintf("min %s max %s (hardware %s–%s, now %s)", evidence.MHz(p.MinKHz), evidence.MHz(p.MaxKHz), evidence.MHz(p.HWMinKHz), evidence.MHz(p.HWMaxKHz), evidence.MHz(p.CurKHz)), locked, true, why)
		if p.EPP != "" {
			good := p.EPP == "performance"
			why := "the hardware trades speed for energy"
			if good {
				why = "the hardware favours speed"
			}
			add(name+" energy_performance_preference", p.EPP, good, true, why)
		}
		if p.Boost != nil {
			add(name+" boost", evidence.OnOff(*p.Boost), !*p.Boost, true, boostWhy(*p.Boost))
		}
	}
	if b := f.CPUFreq.Boost; b != nil {
		add("boost ("+b.File+")", evidence.OnOff(b.On), !b.On, true, boostWhy(b.On))
	}
	for _, c := range f.CPUs {
		if c.EPB != nil {
			add(fmt.Sprintf("cpu%d energy_perf_bias", c.ID), fmt.Sprint(*c.EPB), *c.EPB == 0, false, "0 favours performance, 15 energy")
		}
	}
	return cs
}

func boostWhy(on bool) string {
	if on {
		return "boost/turbo makes the frequency depend on temperature and on the other cores' load"
	}
	return "no boost: the frequency does not depend on temperature or the other cores"
}

func idleChecks(f *evidence.Facts) []evidence.Check {
	var cs []evidence.Check
	for _, c := range f.CPUs {
		var deep []string
		for _, s := range c.Idle {
			if s.Index > shallowIdle(c.Idle) && !s.Disabled {
				deep = append(deep, fmt.Sprintf("%s (%d µs)", s.Name, s.LatencyUS))
			}
		}
		if len(c.Idle) == 0 {
			continue
		}
		good := len(deep) == 0
		why := "no deep idle state: waking up costs no exit latency"
		if !good {
			why = "waking from a deep idle state adds its exit latency to the first work after a pause"
		}
		cs = append(cs, evidence.Check{Item: fmt.Sprintf("cpu%d idle (%s)", c.ID, f.IdleDriver), Value: "deep enabled: " + evidence.OrNone(strings.Join(deep, ", ")), Good: good, Why: why})
	}
	return cs
}

// shallowIdle returns the index of the last state kept by --idle: the first
// state that really idles (POLL, which spins, is kept as well).
func shallowIdle(states []evidence.IdleState) int {
	for _, s := range states {
		if s.Name != "POLL" {
			return s.Index
		}
	}
	return len(states)
}

func irqChecks(f *evidence.Facts) []evidence.Check {
	var cs []evidence.Check
	// An IRQ that has fired on the target lands there; one that only may
	// (its affinity includes the target) is advice: some cannot move at
	// all (the x86 timer and cascade IRQs refuse). A per-CPU interrupt
	// (arm64's arch_timer) fires on every CPU and no tune moves it: it is
	// said as a fact, and advises nothing.
	var landed, may, own []string
	for _, q := range f.IRQs.OnTarget {
		n := q.Number
		if q.Name != "" {
			n += " " + lastWord(q.Name)
		}
		switch {
		case q.PerCPU != "":
			own = append(own, n)
		case q.TargetCount > 0:
			landed = append(landed, fmt.Sprintf("%s (%d)", n, q.TargetCount))
		default:
			may = append(may, n)
		}
	}
	why := "no interrupt routed to the target has fired there"
	if len(landed) > 0 {
		why = "interrupts on the target preempt the measured thread; corepin system tune --irqs moves them"
	}
	cs = append(cs, evidence.Check{Item: "IRQs firing on target", Value: fmt.Sprintf("%d: %s", len(landed), evidence.OrNone(strings.Join(landed, ", "))), Good: len(landed) == 0, Important: true, Why: why})
	if len(own) > 0 {
		cs = append(cs, evidence.Check{Item: "per-CPU IRQs on target", Value: strings.Join(own, ", "), Good: true,
			Why: "every CPU has its own (a per-CPU timer or counter): they fire on any target, and no affinity moves them"})
	}
	why = "no IRQ may be routed to the target"
	if len(may) > 0 {
		why = "these may be routed to the target (they have not fired there yet)"
	}
	cs = append(cs, evidence.Check{Item: "IRQs allowed on target", Value: fmt.Sprintf("%d of %d: %s", len(may), f.IRQs.Total, evidence.OrNone(strings.Join(may, ", "))), Good: len(may) == 0, Why: why})
	if d := f.IRQs.Default; d != nil {
		good := d.Intersect(f.Target).IsEmpty()
		why := "new IRQs avoid the target"
		if !good {
			why = "new IRQs may land on the target"
		}
		cs = append(cs, evidence.Check{Item: "default IRQ affinity", Value: d.String(), Good: good, Why: why})
	}
	if f.Irqbalance != nil && *f.Irqbalance {
		cs = append(cs, evidence.Check{Item: "irqbalance", Value: "running", Good: false, Why: "irqbalance moves IRQs back onto the target; stop it for the measurement"})
	}
	return cs
}

func thermalChecks(f *evidence.Facts) []evidence.Check {
	var cs []evidence.Check
	var busy []string
	for _, d := range f.Cooling {
		if d.CurState > 0 {
			busy = append(busy, fmt.Sprintf("%s %s %d/%d", d.Name, d.Type, d.CurState, d.MaxState))
		}
	}
	if len(f.Cooling) > 0 {
		why := "no cooling device is throttling"
		if len(busy) > 0 {
			why = "a cooling device is throttling now: the frequency is held down by temperature"
		}
		cs = append(cs, evidence.Check{Item: "cooling devices", Value: evidence.OrNone(strings.Join(busy, ", ")), Good: len(busy) == 0, Why: why})
	}
	return cs
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}
