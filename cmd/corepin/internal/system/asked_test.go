package system

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results/evidence"
)

// A frequency or governor not given stays out of the request, so that a
// machine without cpufreq skips it rather than refuse it; the words are
// the flags given, in a stable order, for the journal's record.
func TestAskedRequestAndWords(t *testing.T) {
	if r := (Asked{CPUs: cpuset.Of(1), IRQs: true}).Request(); r.Freq != "" || r.Governor != "" || !r.IRQs || r.CPUs.String() != "1" {
		t.Errorf("nothing given: request %+v", r)
	}
	freq, gov := "base", "userspace"
	a := Asked{CPUs: cpuset.Of(2), Freq: &freq, Governor: &gov, NoBoost: true, Shield: true}
	if r := a.Request(); r.Freq != "base" || r.Governor != "userspace" || !r.NoBoost || !r.Shield || r.IRQs {
		t.Errorf("request %+v", r)
	}
	if got, want := a.Words(), []string{"--freq base", "--governor userspace", "--no-boost", "--shield"}; !slices.Equal(got, want) {
		t.Errorf("words %q, want %q", got, want)
	}
	if got := (Asked{}).Words(); len(got) != 0 {
		t.Errorf("no flags: words %q", got)
	}
}

func TestSayWaitingNamesTheHolder(t *testing.T) {
	var b bytes.Buffer
	SayWaiting(&b)(42, "/run/corepin/system.json.lock", time.Minute)
	SayWaiting(&b)(0, "x.lock", time.Second)
	want := "corepin: waiting for the journal's lock /run/corepin/system.json.lock, held by pid 42 (at most 1m0s; Ctrl-C stops)\n" +
		"corepin: waiting for the journal's lock x.lock, held by another process (at most 1s; Ctrl-C stops)\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestWriteDryRunNamesTheShield(t *testing.T) {
	var b bytes.Buffer
	if err := WriteDryRun(&b, &evidence.Facts{}, evidence.TuneRequest{CPUs: cpuset.Of(3), Shield: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "shield: every other movable task off CPUs 3 with a cpuset\n") {
		t.Errorf("dry run:\n%s", b.String())
	}
}
