package runner

import (
	"path/filepath"
	"testing"
	"time"

	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/session"
)

func TestLongRunsTryNiceFirst(t *testing.T) {
	spec := session.Request{Ladder: session.SPECLadder(), AllowRealtime: true}
	long := bench{command: &suite.Benchmark{}, expectS: 300}
	short := bench{command: &suite.Benchmark{}, expectS: 0.2}
	for _, c := range []struct {
		name string
		cfg  Config
		b    bench
		want string
	}{
		{"long", Config{Request: spec}, long, "spec:nice-first"},
		{"short", Config{Request: spec}, short, "spec"},
		{"long, --realtime-first", Config{Request: spec, RealtimeFirst: true}, long, "spec"},
		{"long, no realtime", Config{Request: session.Request{Ladder: session.SPECLadder()}}, long, "spec"},
	} {
		if got := request(c.cfg, c.b).Ladder.Name(); got != c.want {
			t.Errorf("%s: ladder %s, want %s", c.name, got, c.want)
		}
	}
	longest := make(longestRun, 2)
	for _, r := range []results.RunRecord{{Started: time.Now(), WallS: 1.5}, {Started: time.Now(), WallS: 0.5}, {WallS: 9}, {Started: time.Now(), WallS: 7, Error: "killed"}} {
		longest.add(1, &r)
	}
	if got := expectedSeconds(bench{workload: nil, command: &suite.Benchmark{}}, longest[1]); got != 1.5 {
		t.Errorf("expected %v s after runs of 1.5 and 0.5 s (and two that did not finish)", got)
	}
	if got := expectedSeconds(bench{command: &suite.Benchmark{ReferenceSeconds: 0.3}}, longest[0]); got != 0.3 {
		t.Errorf("expected %v s from a reference of 0.3 s", got)
	}
}

// run.json's options record what was used: the suite's runs, the
// suite's absolute path and its identity.
func TestOptionsRecordWhatWasUsed(t *testing.T) {
	s := loadSuite(t, "[settings]\nruns = 3\n\n[[benchmark]]\nname = \"t\"\ncmd = \"true\"\n")
	cfg := Config{Suite: s, Warmup: -1}
	benches, err := benchmarks(cfg)
	if err != nil {
		t.Fatal(err)
	}
	run := (&suiteRun{cfg: cfg, benches: benches}).skeleton(results.Host{})
	if run.Options.Runs != 3 || !filepath.IsAbs(run.Options.Suite) || run.Options.MaxOthers != judge.DefaultMaxOthers || run.Options.SuiteSHA256 != s.SHA256 || s.SHA256 == "" {
		t.Errorf("options %+v", run.Options)
	}
}
