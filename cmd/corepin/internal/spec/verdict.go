package spec

import (
	"fmt"
	"path/filepath"

	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// words are the texts of the judge's findings: corepin import spec has
// none of the flags they may advise.
var words = judge.Words{}

// command is one command's report as an iteration keeps it, and corepin's
// verdict on it: the one run and exec use (judge.Report), and what makes
// it invalid. The report is kept, byte for byte, and its bytes let go.
func (ir *importRun) command(c *Report) (results.SpecCommand, judge.Verdict, error) {
	s := c.Scheduling
	name := filepath.Join("reports", c.Name)
	if err := ir.keep(name, c.Data); err != nil {
		return results.SpecCommand{}, judge.Verdict{}, err
	}
	c.Data = nil
	ir.note(c)
	sc := results.SpecCommand{Workload: c.Key.Workload, Copy: c.Key.Copy, Report: name, CPUs: s.Readback.CPUs,
		Accepted: s.Accept.OK, AcceptedStep: s.Ladder.AcceptedStep, Ladder: s.Ladder.Name,
		WallS: s.Child.WallS, ExitCode: s.Child.ExitCode, Signal: s.Child.Signal, Refused: s.Refused}
	if s.Readback.CPUs.Len() > 0 {
		cpu := s.Readback.CPU
		sc.CPU = &cpu
	}
	if t := s.Child.Times; t != nil {
		sc.StartUnixNS, sc.EndUnixNS = &t.StartUnixNS, &t.EndUnixNS
	}
	if s.Watch != nil {
		sc.Migrations = s.Watch.Migrations
	}
	if s.Tree != nil {
		sc.Tree = s.Tree.Mechanism
	}
	if s.Coverage != nil {
		sc.Residency = s.Coverage.Residency
	}
	// The realtime throttle of this machine says nothing of the one that
	// ran SPEC: none is given.
	v := judge.Report(s, judge.Rules{Mode: s.Target.Mode})
	sc.Sharing = v.Sharing
	if s.Sharing != nil && s.Sharing.Others != nil {
		share := s.Sharing.Others.Share
		sc.OthersShare = &share
	}
	sc.Invalid = invalidity(s, v)
	return sc, v, nil
}

// boundCommands keeps at most results.MaxSpecCommands of an iteration's
// commands in its record, those that make it invalid or are not recorded
// first, in order, and counts the rest.
func boundCommands(all []results.SpecCommand) ([]results.SpecCommand, int) {
	if len(all) <= results.MaxSpecCommands {
		return all, 0
	}
	kept := make([]results.SpecCommand, 0, results.MaxSpecCommands)
	for _, first := range []bool{true, false} {
		for _, c := range all {
			if (c.Invalid != "" || c.NotRecorded != "") == first && len(kept) < results.MaxSpecCommands {
				kept = append(kept, c)
			}
		}
	}
	return kept, len(all) - len(kept)
}

// invalidity says why a command's report makes its iteration invalid: a
// start corepin refused or could not make, an acceptance rule that failed
// or stopped holding, a shared target, work off the target, a watcher
// that cannot vouch for where it ran. "" when none.
func invalidity(s *evidence.Scheduling, v judge.Verdict) string {
	var shared string
	if f, ok := v.Invalid(); ok {
		shared = words.Text(f)
	}
	switch {
	case s.Refused != "":
		return "corepin refused to start it: " + s.Refused
	case s.ExecError != "":
		return "corepin could not start it: " + s.ExecError
	case !s.Accept.OK:
		return "the acceptance rule failed: " + s.Accept.Why
	case s.Broken != "":
		return "the acceptance rule stopped holding: " + s.Broken
	case shared != "":
		return shared
	}
	return offTarget(s)
}

// offTarget says where a report shows the work off its target, or a
// watcher that cannot vouch for where it ran; "" when neither.
func offTarget(s *evidence.Scheduling) string {
	switch {
	case s.Coverage != nil && s.Coverage.Residency != nil && *s.Coverage.Residency < judge.ResidencyWarn:
		return fmt.Sprintf("the work ran off the target: %.1f%% of its CPU time on it (%s), %d migrations",
			100**s.Coverage.Residency, s.Coverage.ResidencySource, migrations(s))
	case (s.Coverage == nil || s.Coverage.Residency == nil) && s.Watch != nil && s.Watch.OnTargetRatio != nil && *s.Watch.OnTargetRatio < judge.ResidencyWarn:
		return fmt.Sprintf("the work ran off the target: %.1f%% of its run time on it (the watcher's samples), %d migrations",
			100**s.Watch.OnTargetRatio, migrations(s))
	case s.Watch != nil && s.Watch.KeepUp.Unvouched && s.Target.Mode != evidence.Soft:
		return fmt.Sprintf("the watcher missed %d of %d ticks: where it ran cannot be vouched for", s.Watch.KeepUp.Missed, s.Watch.KeepUp.Expected)
	}
	return ""
}

func migrations(s *evidence.Scheduling) int {
	if s.Watch == nil {
		return 0
	}
	return s.Watch.Migrations
}
