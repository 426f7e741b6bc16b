package system

import (
	"fmt"
	"io"
	"strings"

	"corepin.dev/corepin/internal/termsafe"
)

// WriteText writes the facts and their judgement for a terminal: the
// facts first, then one line per check marked ok, BAD (an important check
// that fails) or warn (advice), and a last line that says whether the
// machine is tuned for the target.
func (f *Facts) WriteText(w io.Writer) {
	fmt.Fprintf(w, "target CPUs %s (online %s, isolated %s, nohz_full %s)\n",
		orNone(f.Target.String()), orNone(f.Online.String()), orNone(f.Isolated.String()), orNone(f.NohzFull.String()))
	if f.CPUFreq == nil {
		fmt.Fprintln(w, "cpufreq: none (no driver under sys/devices/system/cpu/cpufreq)")
	} else {
		c := f.CPUFreq
		fmt.Fprintf(w, "cpufreq: driver %s", c.Driver)
		if c.IntelPstate != "" {
			fmt.Fprintf(w, ", intel_pstate %s", c.IntelPstate)
		}
		if c.AMDPstate != "" {
			fmt.Fprintf(w, ", amd_pstate %s", c.AMDPstate)
		}
		if c.Boost != nil {
			fmt.Fprintf(w, ", boost %s", onOff(c.Boost.On))
		}
		fmt.Fprintln(w)
		for _, p := range c.Policies {
			mark := " "
			if !p.CPUs.Intersect(f.Target).IsEmpty() {
				mark = "*"
			}
			fmt.Fprintf(w, " %s %s CPUs %s: %s (of %s), min %s max %s, hardware %s–%s", mark, p.Name, p.CPUs, p.Governor,
				strings.Join(p.Governors, " "), khz(p.MinKHz), khz(p.MaxKHz), khz(p.HWMinKHz), khz(p.HWMaxKHz))
			if p.BaseKHz != nil {
				fmt.Fprintf(w, ", base %s", khz(p.BaseKHz))
			}
			fmt.Fprintf(w, ", now %s", khz(p.CurKHz))
			if p.EPP != "" {
				fmt.Fprintf(w, ", EPP %s", p.EPP)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "idle: driver %s, governor %s\n", orNone(f.IdleDriver), orNone(f.IdleGovernor))
	for _, c := range f.CPUs {
		var states []string
		for _, s := range c.Idle {
			st := fmt.Sprintf("%s %dµs", s.Name, s.LatencyUS)
			if s.Disabled {
				st += " (disabled)"
			}
			states = append(states, st)
		}
		fmt.Fprintf(w, "  cpu%d: %s\n", c.ID, orNone(strings.Join(states, ", ")))
	}
	def := "unknown"
	if f.IRQs.Default != nil {
		def = f.IRQs.Default.String()
	}
	fmt.Fprintf(w, "IRQs: %d with an affinity, %d may use the target; default affinity %s\n", f.IRQs.Total, len(f.IRQs.OnTarget), def)
	for _, q := range f.IRQs.OnTarget {
		fmt.Fprintf(w, "  %s: CPUs %s, %d on target: %s\n", q.Number, q.Affinity, q.TargetCount, q.Name)
	}
	fmt.Fprintf(w, "kernel: perf_event_max_sample_rate %s, ASLR %s, irqbalance %s\n", optInt(f.PerfMaxSampleRate), optInt(f.ASLR), running(f.Irqbalance))
	l := f.Load
	fmt.Fprintf(w, "load: %.2f %.2f %.2f, %d runnable threads, up %.0f s\n", l.Avg[0], l.Avg[1], l.Avg[2], l.Runnable, l.UptimeS)
	for _, z := range f.Thermal {
		t := "?"
		if z.TempC != nil {
			t = fmt.Sprintf("%.1f °C", *z.TempC)
		}
		fmt.Fprintf(w, "thermal: %s %s %s\n", z.Name, z.Type, t)
	}
	for _, d := range f.Cooling {
		fmt.Fprintf(w, "cooling: %s %s %d/%d\n", d.Name, d.Type, d.CurState, d.MaxState)
	}
	if j := f.Journal; j != nil {
		for _, l := range j.Tunes {
			state := "its process has ended: corepin system reset puts the changes back"
			if l.Running {
				state = "still running, it puts them back when it ends"
			}
			fmt.Fprintf(w, "journal %s: %d changes by `%s` (pid %d, %s), %s\n", j.Journal, l.Changes, termsafe.Text(l.Command), l.PID, l.Started.Local().Format("2006-01-02 15:04:05"), state)
		}
		for _, sh := range j.Shields {
			inside := ""
			if sh.Inside {
				inside = "; this process runs inside it"
			}
			by := fmt.Sprintf("`%s`", termsafe.Text(sh.Command))
			if sh.Command == "" {
				by = fmt.Sprintf("corepin pid %d", sh.PID)
			}
			fmt.Fprintf(w, "shield: CPUs %s kept for the work by %s, the rest of the machine in %s on CPUs %s%s\n", sh.CPUs, by, sh.Cgroup, sh.Others, inside)
		}
		if j.Error != "" {
			fmt.Fprintf(w, "journal %s: cannot be used: %s\n", j.Journal, j.Error)
		}
	}
	for _, u := range f.Unreadable {
		fmt.Fprintf(w, "unreadable: %s\n", u)
	}
	fmt.Fprintln(w)
	bad := 0
	for _, c := range f.Checks {
		mark := "ok  "
		switch {
		case !c.Good && c.Important:
			mark = "BAD "
			bad++
		case !c.Good:
			mark = "warn"
		}
		fmt.Fprintf(w, "%s %s: %s — %s\n", mark, c.Item, c.Value, c.Why)
	}
	fmt.Fprintln(w)
	if bad == 0 {
		fmt.Fprintf(w, "tuned for measuring on CPUs %s\n", f.Target)
	} else {
		fmt.Fprintf(w, "not tuned for measuring on CPUs %s: %d important checks fail (corepin system tune fixes what it can)\n", f.Target, bad)
	}
}

// Warnings returns one line per important check that fails, and the
// journal's warnings (a tune left behind, a shield the reader runs
// inside), for a run's warnings.
func (f *Facts) Warnings() []string {
	var out []string
	for _, c := range f.Checks {
		if c.Important && !c.Good {
			value := c.Value
			if len(value) > 60 {
				value = value[:57] + "…"
			}
			out = append(out, fmt.Sprintf("machine not tuned for measuring on CPUs %s: %s is %s (%s)", f.Target, c.Item, value, c.Why))
		}
	}
	return append(out, f.Journal.Warnings()...)
}

func optInt(v *int) string {
	if v == nil {
		return "unknown"
	}
	return fmt.Sprint(*v)
}

func running(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "running"
	}
	return "not running"
}
