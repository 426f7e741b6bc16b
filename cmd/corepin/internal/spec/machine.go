package spec

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"corepin.dev/corepin/internal/buildinfo"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// host is what SPEC's file says of the machine, and the corepin that
// imported it. The file names the machine's CPU and its system as its
// config described them (hw_cpu_name, sw_os), no host name and no
// kernel of its own.
func (im *Import) host() results.Host {
	return results.Host{CPUModel: im.Result.CPUName, OS: im.Result.OS, GoVersion: runtime.Version(), Corepin: buildinfo.Read().Version}
}

// note keeps what a joined report says of the run as a whole: the first
// command's start, each copy's target, the ladder.
func (ir *importRun) note(c *Report) {
	s := c.Scheduling
	if t := unixTime(s); !t.IsZero() && (ir.first.IsZero() || t.Before(ir.first)) {
		ir.first = t
	}
	if _, ok := ir.copies[c.Key.Copy]; !ok {
		ir.copies[c.Key.Copy] = s.Target
	}
	if ir.ladder == "" {
		ir.ladder = s.Ladder.Name
	}
}

// when is the run's start: its first command's, or its first rate
// iteration's where that is earlier, else the result file's time.
func (ir *importRun) when() time.Time {
	first := ir.first
	if rate := ir.im.rateStart(); !rate.IsZero() && (first.IsZero() || rate.Before(first)) {
		first = rate
	}
	if first.IsZero() {
		return ir.im.Modified
	}
	return first
}

// resultStart is the run's start as SPEC's file says it: its first rate
// iteration's, else the file's time.
func (im *Import) resultStart() time.Time {
	if t := im.rateStart(); !t.IsZero() {
		return t
	}
	return im.Modified
}

// rateStart is the first rate iteration's start; zero for a speed run.
func (im *Import) rateStart() time.Time {
	var first time.Time
	for _, it := range im.Result.Iterations {
		if it.RateStart != nil {
			if t := time.Unix(0, epochNS(*it.RateStart)); first.IsZero() || t.Before(first) {
				first = t
			}
		}
	}
	return first
}

// target is where the copies were asked to run, from the joined reports.
func (ir *importRun) target() results.Target {
	t := results.Target{Spec: "not recorded", Mode: evidence.Exact, ExactCPU: -1,
		Why: "where SPEC's commands ran is not recorded: no report of corepin exec was joined"}
	if len(ir.copies) == 0 {
		return t
	}
	var where []string
	order := slices.Sorted(maps.Keys(ir.copies))
	for _, c := range order {
		tr := ir.copies[c]
		t.SoftCPUs = t.SoftCPUs.Union(tr.CPUs)
		where = append(where, fmt.Sprintf("copy %d on CPUs %s", c, tr.CPUs))
	}
	first := ir.copies[order[0]]
	t.Spec, t.Mode, t.ExactCPU = "bind", first.Mode, first.CPU
	t.Why = "SPEC's bind, as corepin exec was asked: " + strings.Join(where, ", ") + "; each iteration's commands hold their read-backs"
	return t
}

// runWarnings are the run's own: SPEC's verdict on the whole result, the
// means that differ, the reports no iteration joined and why.
func (ir *importRun) runWarnings(notJoined []string) []results.Warning {
	sr := ir.run.Spec
	w := []results.Warning{}
	add := func(kind, text string) { w = append(w, results.Warning{Run: results.NoRun, Kind: kind, Text: text}) }
	if sr.Invalid {
		msg := "SPEC marked the result invalid"
		if len(sr.Errors) > 0 {
			msg += ": " + evidence.Clip(strings.Join(sr.Errors, "; "), 512)
		}
		add(results.KindSpecVerdict, msg)
	}
	if sr.MeanNote != "" {
		add(results.KindSpecMean, sr.MeanNote)
	}
	for _, u := range notJoined {
		add(results.KindSpecUnjoined, u)
	}
	if len(ir.joined) == 0 {
		add(results.KindNotRecorded, "where it ran: not recorded (no report of corepin exec was joined)")
	}
	return w
}

// unjoined lists the reports no iteration joined in the run's record
// (the first MaxUnjoined by name, and a count of the rest), and says,
// once for each reason, how many there are and why: another run's
// folder, commands outside SPEC's times of their iterations, a second
// report of one command, or no iteration of the result to join.
func (ir *importRun) unjoined() []string {
	reps := ir.im.Reports
	if reps == nil {
		return nil
	}
	sr := ir.run.Spec
	type group struct {
		n       int
		example string
	}
	groups := map[string]*group{}
	var order []string
	duplicate := map[string]bool{}
	for _, name := range reps.Duplicates {
		duplicate[name] = true
	}
	for _, name := range reps.sortedNames() {
		k, ok := ParseReportName(name)
		if ok && (ir.joined[k] || ir.unread[k]) && !duplicate[name] {
			continue
		}
		if len(sr.Unjoined) < results.MaxUnjoined {
			sr.Unjoined = append(sr.Unjoined, name)
		} else {
			sr.UnjoinedOmitted++
		}
		why := ir.whyNotJoined(name, duplicate[name])
		if groups[why] == nil {
			groups[why] = &group{example: name}
			order = append(order, why)
		}
		groups[why].n++
	}
	var w []string
	for _, why := range order {
		g := groups[why]
		w = append(w, fmt.Sprintf("%d of corepin's reports in %s not joined: %s; e.g. %s", g.n, reps.Dir, why, g.example))
	}
	return w
}

// whyNotJoined says why a report was not joined.
func (ir *importRun) whyNotJoined(name string, duplicate bool) string {
	if ir.foreign != "" {
		return ir.foreign
	}
	if why, ok := ir.refused[name]; ok {
		return why
	}
	if duplicate {
		return "a second report of a command another report has"
	}
	return "no iteration of this result has them (another run's, or a tuning or iteration not in it)"
}
