package system

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

// Asked is a tune as a command line asks for it: the target, and each
// flag of a tune. Freq and Governor are nil when they were not given.
type Asked struct {
	CPUs                                     cpuset.Set
	Freq, Governor                           *string
	AllPolicies, NoBoost, IRQs, Idle, Shield bool
}

// Request is the tune asked for. The frequency and the governor are in
// it only when given: a tune without them locks the highest frequency
// with the performance governor where the machine has cpufreq, and skips
// both, saying so, where it has none; one that asks for them there is
// refused.
func (a Asked) Request() evidence.TuneRequest {
	r := evidence.TuneRequest{CPUs: a.CPUs, AllPolicies: a.AllPolicies, NoBoost: a.NoBoost, IRQs: a.IRQs, Idle: a.Idle, Shield: a.Shield}
	if a.Freq != nil {
		r.Freq = *a.Freq
	}
	if a.Governor != nil {
		r.Governor = *a.Governor
	}
	return r
}

// Words are the flags of the tune as given, for the journal's record of
// the command that made it.
func (a Asked) Words() []string {
	var out []string
	for _, f := range []struct {
		name  string
		value *string
	}{{"freq", a.Freq}, {"governor", a.Governor}} {
		if f.value != nil {
			out = append(out, "--"+f.name+" "+*f.value)
		}
	}
	for _, f := range []struct {
		name string
		on   bool
	}{{"all-policies", a.AllPolicies}, {"no-boost", a.NoBoost}, {"irqs", a.IRQs}, {"idle", a.Idle}, {"shield", a.Shield}} {
		if f.on {
			out = append(out, "--"+f.name)
		}
	}
	return out
}

// IRQWarning is what to tell a person whose tune moves IRQs off the
// target while irqbalance runs, which moves them back; "" when nothing
// need be said, or the machine cannot be read.
func IRQWarning(root fsroot.Root, req evidence.TuneRequest) string {
	if !req.IRQs {
		return ""
	}
	if f, err := Read(root, req.CPUs); err == nil && f.Irqbalance != nil && *f.Irqbalance {
		return "irqbalance is running and will move IRQs back onto the target; stop it for the measurement"
	}
	return ""
}

// WriteDryRun writes what a tune of req would do to the machine f
// describes, changing nothing: each change, what it would not set, and
// the shield. The error is a request the machine cannot meet.
func WriteDryRun(w io.Writer, f *evidence.Facts, req evidence.TuneRequest) error {
	changes, err := Plan(f, req)
	if err != nil {
		return err
	}
	WritePlan(w, changes)
	for _, x := range Skipped(f, req) {
		fmt.Fprintln(w, "not set:", x)
	}
	if req.Shield {
		fmt.Fprintf(w, "shield: every other movable task off CPUs %s with a cpuset\n", req.CPUs)
	}
	return nil
}

// WriteText writes what a tune did: each value set, and the shield.
func (t *Tuned) WriteText(w io.Writer) {
	t.Result.WriteText(w)
	if t.Shield != nil {
		t.Shield.WriteText(w)
	}
}

// SayWaiting is a Machine's Waiting that says on w why nothing happens
// while another process holds the journal's lock.
func SayWaiting(w io.Writer) func(holder int, lock string, timeout time.Duration) {
	return func(holder int, lock string, timeout time.Duration) {
		who := "another process"
		if holder > 0 {
			who = "pid " + strconv.Itoa(holder)
		}
		fmt.Fprintf(w, "corepin: waiting for the journal's lock %s, held by %s (at most %s; Ctrl-C stops)\n", lock, who, timeout)
	}
}
