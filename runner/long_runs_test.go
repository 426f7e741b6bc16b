package runner

import (
	"testing"
	"time"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/suite"
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
		if got := c.cfg.request(c.b).Ladder.Name(); got != c.want {
			t.Errorf("%s: ladder %s, want %s", c.name, got, c.want)
		}
	}
	done := []results.RunRecord{{Started: time.Now(), WallS: 1.5}, {Started: time.Now(), WallS: 0.5}, {}}
	if got := expectedSeconds(bench{workload: nil, command: &suite.Benchmark{}}, done); got != 1.5 {
		t.Errorf("expected %v s after runs of 1.5 and 0.5 s", got)
	}
	if got := expectedSeconds(bench{command: &suite.Benchmark{ReferenceSeconds: 0.3}}, nil); got != 0.3 {
		t.Errorf("expected %v s from a reference of 0.3 s", got)
	}
}
