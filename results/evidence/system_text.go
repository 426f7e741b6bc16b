package evidence

import (
	"fmt"
	"io"
	"strings"

	"corepin.dev/corepin/internal/termsafe"
)

// The views of the machine's condition and of what a tune did: the same
// text for "corepin system show" on the live machine and for a results
// folder read back.

// Policy returns the policy that holds cpu, or nil.
func (c *CPUFreq) Policy(cpu int) *FreqPolicy {
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
func (f *Facts) TargetPolicies() []*FreqPolicy {
	if f.CPUFreq == nil {
		return nil
	}
	var ps []*FreqPolicy
	for i := range f.CPUFreq.Policies {
		if !f.CPUFreq.Policies[i].CPUs.Intersect(f.Target).IsEmpty() {
			ps = append(ps, &f.CPUFreq.Policies[i])
		}
	}
	return ps
}

// Locked reports whether the policy's frequency is held at one value.
func (p *FreqPolicy) Locked() bool {
	return p.MinKHz != nil && p.MaxKHz != nil && *p.MinKHz == *p.MaxKHz
}

// HasGovernor reports whether the driver offers governor g.
func (p *FreqPolicy) HasGovernor(g string) bool {
	for _, x := range p.Governors {
		if x == g {
			return true
		}
	}
	return false
}

// Tuned reports whether every important check is good.
func (f *Facts) Tuned() bool {
	for _, c := range f.Checks {
		if c.Important && !c.Good {
			return false
		}
	}
	return true
}

// LockedKHz returns the frequency the target CPU's policy is locked at
// (min = max), or 0.
func (f *Facts) LockedKHz(cpu int) int64 {
	if f == nil {
		return 0
	}
	p := f.CPUFreq.Policy(cpu)
	if p == nil || !p.Locked() {
		return 0
	}
	return *p.MinKHz
}

// WriteText writes the facts and their judgement for a terminal: the
// facts first, then one line per check marked ok, BAD (an important check
// that fails) or warn (advice), and a last line that says whether the
// machine is tuned for the target.
func (f *Facts) WriteText(w io.Writer) {
	fmt.Fprintf(w, "target CPUs %s (online %s, isolated %s, nohz_full %s)\n",
		OrNone(f.Target.String()), OrNone(f.Online.String()), OrNone(f.Isolated.String()), OrNone(f.NohzFull.String()))
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
			fmt.Fprintf(w, ", boost %s", OnOff(c.Boost.On))
		}
		fmt.Fprintln(w)
		for _, p := range c.Policies {
			mark := " "
			if !p.CPUs.Intersect(f.Target).IsEmpty() {
				mark = "*"
			}
			fmt.Fprintf(w, " %s %s CPUs %s: %s (of %s), min %s max %s, hardware %s–%s", mark, p.Name, p.CPUs, p.Governor,
				strings.Join(p.Governors, " "), MHz(p.MinKHz), MHz(p.MaxKHz), MHz(p.HWMinKHz), MHz(p.HWMaxKHz))
			if p.BaseKHz != nil {
				fmt.Fprintf(w, ", base %s", MHz(p.BaseKHz))
			}
			fmt.Fprintf(w, ", now %s", MHz(p.CurKHz))
			if p.EPP != "" {
				fmt.Fprintf(w, ", EPP %s", p.EPP)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "idle: driver %s, governor %s\n", OrNone(f.IdleDriver), OrNone(f.IdleGovernor))
	for _, c := range f.CPUs {
		var states []string
		for _, s := range c.Idle {
			st := fmt.Sprintf("%s %dµs", s.Name, s.LatencyUS)
			if s.Disabled {
				st += " (disabled)"
			}
			states = append(states, st)
		}
		fmt.Fprintf(w, "  cpu%d: %s\n", c.ID, OrNone(strings.Join(states, ", ")))
	}
	def := "unknown"
	if f.IRQs.Default != nil {
		def = f.IRQs.Default.String()
	}
	fmt.Fprintf(w, "IRQs: %d with an affinity, %d may use the target; default affinity %s\n", f.IRQs.Total, len(f.IRQs.OnTarget), def)
	for _, q := range f.IRQs.OnTarget {
		per := ""
		if q.PerCPU != "" {
			per = " (per-CPU: " + q.PerCPU + ")"
		}
		fmt.Fprintf(w, "  %s: CPUs %s, %d on target: %s%s\n", q.Number, q.Affinity, q.TargetCount, q.Name, per)
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
			value := clipList(c.Value, 60)
			out = append(out, fmt.Sprintf("machine not tuned for measuring on CPUs %s: %s is %s (%s)", f.Target, c.Item, value, c.Why))
		}
	}
	return append(out, f.Journal.Warnings()...)
}

// clipList cuts a check's value to about max bytes for a warning line,
// after the last whole item of a list ("25 ttyS0 (10), 31 virtio0 (1387)")
// where it is one, so that no item is cut in half; Clip otherwise.
func clipList(value string, max int) string {
	if len(value) <= max {
		return value
	}
	if cut := strings.LastIndex(value[:max-len(", …")], ", "); cut > 0 {
		return value[:cut] + ", …"
	}
	return Clip(value, max)
}

// Warnings says what a corepin command must tell the person who started
// it: a journal it cannot use, the tunes left by processes that ended,
// and the shield it runs inside. Text from the journal is made safe for a
// terminal.
func (s *JournalState) Warnings() []string {
	if s == nil {
		return nil
	}
	var out []string
	if s.Error != "" {
		out = append(out, "cannot use the journal of a tuned machine: "+s.Error)
	}
	if msg := StaleText(s.Tunes); msg != "" {
		out = append(out, msg)
	}
	for _, sh := range s.Shields {
		if !sh.Inside {
			continue
		}
		way := "run corepin from the shell that made the shield, or take the shield down with `corepin system reset`"
		if sh.Running {
			way = "run corepin from the shell that started it, or after it ends: the shield comes down with it"
		}
		by := fmt.Sprintf("`%s` (pid %d, %s)", termsafe.Text(sh.Command), sh.PID, sh.Started.Local().Format("2006-01-02 15:04:05"))
		if sh.Command == "" {
			by = fmt.Sprintf("corepin pid %d (its cgroup %s says so; the journal %s does not)", sh.PID, sh.Cgroup, s.Journal)
		}
		out = append(out, fmt.Sprintf("inside corepin's shield: CPUs %s are shielded by %s, and this process may use only CPUs %s; %s", sh.CPUs, by, sh.Others, way))
	}
	return out
}

// StaleText is the warning for the layers whose process has ended, ""
// when there are none.
func StaleText(tunes []TuneLayer) string {
	var who []string
	for _, l := range tunes {
		if !l.Running {
			who = append(who, fmt.Sprintf("`%s` (pid %d, %s, %d changes)", termsafe.Text(l.Command), l.PID, l.Started.Local().Format("2006-01-02 15:04:05"), l.Changes))
		}
	}
	if len(who) == 0 {
		return ""
	}
	return "the machine is still tuned from " + strings.Join(who, " and ") + "; `corepin system reset` restores it"
}

// WriteText writes the shield's report.
func (r *ShieldReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "shield (%s): CPUs %s kept for the work, the rest of the machine in %s on CPUs %s; %d moved, %d narrowed, %d could not leave",
		r.Hierarchy, r.CPUs, r.Cgroup, r.Others, r.Moved, r.Narrowed, len(r.Unmovable))
	if n := len(r.Left); n > 0 {
		fmt.Fprintf(w, ", %d corepin %s left in place", n, plural(n, "run", "runs"))
	}
	fmt.Fprintln(w)
	for _, c := range r.Left {
		fmt.Fprintf(w, "  left in place, a corepin that measures now: pid %d `%s` and its run (%d %s, found by %s)\n", c.PID, termsafe.Text(c.Command),
			c.Processes, plural(c.Processes, "process", "processes"), strings.Join(c.How, " and "))
	}
	for _, t := range r.Unmovable {
		fmt.Fprintf(w, "  still on the target: %d %s (CPUs %s): %s\n", t.TID, termsafe.Text(t.Name), t.CPUs, t.Why)
	}
	if r.OutsideBusyPct != nil {
		fmt.Fprintf(w, "  those used at most %.2f%% of the target over %.1f s\n", *r.OutsideBusyPct, r.DurationS)
	}
}

// WriteText writes what a tune did.
func (r *TuneResult) WriteText(w io.Writer) {
	for _, d := range r.Done {
		fmt.Fprintf(w, "%s: %s -> %s (reads back %s)\n", d.Path, d.Old, d.Value, d.ReadBack)
	}
	for _, x := range r.Refused {
		fmt.Fprintf(w, "not moved: %s\n", x.Error)
	}
	for _, x := range r.Skipped {
		fmt.Fprintf(w, "not set: %s\n", x)
	}
	for _, d := range r.Relied {
		fmt.Fprintf(w, "%s: %s already, set by another corepin's tune; kept until the last tune that relies on it ends\n", d.Path, d.ReadBack)
	}
	if len(r.Done) == 0 && len(r.Refused) == 0 && len(r.Relied) == 0 {
		fmt.Fprintln(w, "nothing to change: every value already holds")
	}
}

// WriteText writes what a reset put back and what it could not.
func (r *ResetReport) WriteText(w io.Writer) {
	for _, e := range r.Restored {
		fmt.Fprintf(w, "put back %s\n", describe(e))
	}
	for _, f := range r.Failed {
		fmt.Fprintf(w, "NOT put back: %s\n", f.Error())
	}
	for _, l := range r.Running {
		fmt.Fprintf(w, "left alone: the changes of %s, which still runs and puts them back when it ends\n", l)
	}
	for _, e := range r.Kept {
		fmt.Fprintf(w, "kept: %s = %s, which another tune in the journal relies on; it puts it back when it is undone\n", e.Path, strings.TrimSpace(e.New))
	}
	if len(r.Failed) > 0 {
		fmt.Fprintf(w, "the journal %s keeps them; run corepin system reset again once the cause is gone\n", r.Journal)
	} else if len(r.Restored) == 0 && len(r.Running) == 0 && len(r.Kept) == 0 {
		fmt.Fprintln(w, "nothing to put back")
	}
}

func describe(e Entry) string {
	switch e.Op {
	case OpMove:
		return fmt.Sprintf("task %d into %s", e.TID, e.Old)
	case OpAffinity:
		return fmt.Sprintf("thread %d's CPUs %s", e.TID, e.Old)
	case OpMkdir:
		return "no cgroup " + e.Path + " (removed)"
	case OpControl:
		return fmt.Sprintf("%s without %s", e.Path, e.New)
	}
	return fmt.Sprintf("%s = %s", e.Path, strings.TrimSpace(e.Old))
}

// OnOff writes a switch.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// MHz writes a frequency given in kHz (as sysfs gives it) in MHz, "?"
// where it is unknown.
func MHz(v *int64) string {
	if v == nil {
		return "?"
	}
	return fmt.Sprintf("%g MHz", float64(*v)/1000)
}

// OrNone writes an empty list or name as "none".
func OrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
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

// plural picks the word for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
