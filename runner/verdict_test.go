package runner

import (
	"strings"
	"testing"

	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/suite"
)

func record(waitShare float64, busy, usable int, coverage float64, source string) results.RunRecord {
	return results.RunRecord{Valid: true, Scheduling: &launch.Report{
		Child:    launch.ChildReport{WallS: 1},
		Sharing:  &launch.Sharing{UsableCPUs: usable, WaitShare: &waitShare, BusyThreads: busy},
		Coverage: &launch.Coverage{Coverage: &coverage, ResidencySource: source, TreeCPUS: 1},
	}}
}

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		name        string
		cfg         Config
		rec         results.RunRecord
		valid       bool
		error, warn string
	}{
		{"own CPU", Config{}, record(0.01, 1, 1, 1, "cpuacct"), true, "", ""},
		{"above --max-wait", Config{}, record(0.05, 1, 1, 1, "cpuacct"), true, "", "waited 5.0% of its time for the target CPU, above --max-wait 2.0%"},
		{"a lower --max-wait", Config{MaxWait: 0.005}, record(0.01, 1, 1, 1, "cpuacct"), true, "", "above --max-wait 0.5%"},
		{"shared", Config{}, record(0.5, 1, 1, 1, "cpuacct"), false, "the target CPU was shared: the work waited 50% of its time", ""},
		{"shared, allowed", Config{AllowSharing: true}, record(0.5, 1, 1, 1, "cpuacct"), true, "", "waited 50% of its time (allowed by --allow-sharing)"},
		{"two busy threads on one CPU", Config{}, record(0, 2, 1, 1, "cpuacct"), false, "2 busy threads ran on 1 target CPU(s) in exact mode", ""},
		{"two busy threads, soft mode", Config{Request: session.Request{Mode: session.Soft}}, record(0, 2, 1, 1, "cpuacct"), true, "", ""},
		{"samples cover little", Config{}, record(0, 1, 1, 0.3, "sampled"), true, "", "the sampled residency covers only 30% of the tree's CPU time"},
		// Already invalid (its watcher could not vouch for it): the sharing
		// is still said, so that the shared time is not counted.
		{"shared and unvouched", Config{}, unvouched(record(0.5, 1, 1, 1, "cpuacct")), false, "the target CPU was shared: the work waited 50% of its time", ""},
	} {
		rec := c.rec
		c.cfg.judge(&rec)
		warns := strings.Join(rec.Warnings, "; ")
		if rec.Valid != c.valid || !strings.Contains(rec.Error, c.error) || (c.warn == "") != (warns == "") || !strings.Contains(warns, c.warn) {
			t.Errorf("%s: valid %v, error %q, warnings %q", c.name, rec.Valid, rec.Error, warns)
		}
	}
}

func unvouched(rec results.RunRecord) results.RunRecord {
	rec.Valid = false
	rec.Checks = append(rec.Checks, suite.Outcome{What: "the watcher kept up", Detail: "missed 13 of 25 ticks"})
	return rec
}
