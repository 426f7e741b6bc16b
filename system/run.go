package system

import (
	"context"
	"fmt"
	"io"
	"strings"
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
	Request Request       `json:"request"`
	Result  *Result       `json:"result"`
	Shield  *ShieldReport `json:"shield,omitempty"`
	// Reset is what Undo put back; nil until it ran.
	Reset *ResetReport `json:"reset,omitempty"`

	session *Session
	shield  *shield
}

// TuneFor tunes the machine for a run: it reads the facts, plans the
// request, applies it and, when asked, shields the target. On an error
// nothing stays changed. command names the run in the journal. A signal
// (ctx ending) before TuneFor returns is an error too: what was changed is
// put back, so that a Ctrl-C during a tune leaves the machine as it was.
func TuneFor(ctx context.Context, m *Machine, req Request, command string) (*Tuned, error) {
	f, err := Read(m.Root, req.CPUs)
	if err != nil {
		return nil, err
	}
	changes, err := Plan(f, req)
	if err != nil {
		return nil, err
	}
	t := &Tuned{Request: req, session: m.Session(command)}
	if t.Result, err = t.session.Apply(ctx, changes); err != nil {
		return nil, err
	}
	t.Result.Skipped = Skipped(f, req)
	if req.Shield && ctx.Err() == nil {
		if t.shield, t.Shield, err = startShield(m, t.session, req.CPUs); err != nil {
			if _, rerr := t.session.Reset(); rerr != nil {
				err = fmt.Errorf("%w; putting the tune back: %v", err, rerr)
			}
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		err = &stopped{"stopped after tuning", err}
		if uerr := t.Undo(); uerr != nil {
			return nil, fmt.Errorf("%w; putting the tune back: %v", err, uerr)
		}
		return nil, fmt.Errorf("%w (the %d changes made were put back)", err, len(t.Reset.Restored))
	}
	return t, nil
}

// Undo puts back what the tune changed, shield first; it is safe to call
// more than once and on a nil Tuned.
func (t *Tuned) Undo() error {
	if t == nil || t.Reset != nil {
		return nil
	}
	if t.shield != nil {
		t.shield.finish(t.Shield)
	}
	rep, err := t.session.Reset()
	if rep == nil {
		rep = &ResetReport{}
	}
	t.Reset = rep
	return err
}

// LockedKHz returns the frequency the target CPU's policy is locked at
// (min = max), or 0.
func (f *Facts) LockedKHz(cpu int) int64 {
	if f == nil {
		return 0
	}
	p := f.CPUFreq.Policy(cpu)
	if p == nil || !p.locked() {
		return 0
	}
	return *p.MinKHz
}

// FrequencyMoved returns a warning when telemetry saw the target's
// frequency away from the one it was locked at: a thermal limit or a
// vendor's daemon undid the lock. "" when it held (within 2%, the
// granularity of frequency read-outs) or when nothing was locked.
func FrequencyMoved(lockedKHz int64, minMHz, maxMHz *float64) string {
	if lockedKHz == 0 || minMHz == nil || maxMHz == nil {
		return ""
	}
	want := float64(lockedKHz) / 1000
	if *minMHz >= want*0.98 && *maxMHz <= want*1.02 {
		return ""
	}
	return fmt.Sprintf("the target's frequency moved between %.0f and %.0f MHz while it was locked at %.0f MHz: thermal throttling, or a daemon undid the lock", *minMHz, *maxMHz, want)
}

// WritePlan writes what a tune would change, for --dry-run.
func WritePlan(w io.Writer, changes []Change) {
	if len(changes) == 0 {
		fmt.Fprintln(w, "nothing to change: every value already holds")
		return
	}
	for _, c := range changes {
		note := ""
		if c.BestEffort {
			note = " (if the kernel lets it move)"
		}
		fmt.Fprintf(w, "%s: %s -> %s%s — %s\n", c.Path, orNone(c.Was), c.Value, note, c.Why)
	}
}

// WriteResult writes what a tune did.
func (r *Result) WriteText(w io.Writer) {
	for _, d := range r.Done {
		fmt.Fprintf(w, "%s: %s -> %s (reads back %s)\n", d.Path, d.Old, d.Value, d.ReadBack)
	}
	for _, x := range r.Refused {
		fmt.Fprintf(w, "not moved: %s\n", x.Error)
	}
	for _, x := range r.Skipped {
		fmt.Fprintf(w, "not set: %s\n", x)
	}
	if len(r.Done) == 0 && len(r.Refused) == 0 {
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
	if len(r.Failed) > 0 {
		fmt.Fprintf(w, "the journal %s keeps them; run corepin system reset again once the cause is gone\n", r.Journal)
	} else if len(r.Restored) == 0 && len(r.Running) == 0 {
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
		v := fmt.Sprintf("%s %s, min %s max %s", p.Driver, p.Governor, khz(p.MinKHz), khz(p.MaxKHz))
		if p.EPP != "" {
			v += ", EPP " + p.EPP
		}
		out = append(out, Line{"Frequency " + p.Name, v})
	}
	if s.CPUFreq != nil && s.CPUFreq.Boost != nil {
		out = append(out, Line{"Boost", onOff(s.CPUFreq.Boost.On)})
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
		if sh := t.Shield; sh != nil {
			v := fmt.Sprintf("%s, %d moved, %d narrowed, %d left on the target", sh.Hierarchy, sh.Moved, sh.Narrowed, len(sh.Unmovable))
			if sh.OutsideBusyPct != nil {
				v += fmt.Sprintf(" (using at most %.2f%% of it)", *sh.OutsideBusyPct)
			}
			out = append(out, Line{"Shield", v})
		}
	}
	return out
}
