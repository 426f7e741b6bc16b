package experiment

import (
	"strings"
	"testing"

	"corepin.dev/corepin/topology"
)

// TestParameters: the parameters an experiment is run with are read and
// bounded before anything runs, each wrong one named.
func TestParameters(t *testing.T) {
	if lv, err := ParseLevels("", "background", "user-interactive"); err != nil || len(lv) != 2 {
		t.Errorf("two levels: %v, %v", lv, err)
	}
	if n, err := ParseWork("fib:30"); err != nil || n != 30 {
		t.Errorf("fib:30: %d, %v", n, err)
	}
	if c, err := ParseChunks("4, 16"); err != nil || len(c) != 2 || c[1] != 16 {
		t.Errorf("4, 16: %v, %v", c, err)
	}
	for _, err := range []error{
		second(ParseLevels("some", "", "")), second(ParseLevels("", "utility", "utility")), second(ParseLevels("", "nosuch", "utility")),
		second(ParseWork("fib:51")), second(ParseWork("sha:3")), second(ParseChunks("4,0")),
		QoSConfig{Runs: 0}.Validate(), QoSConfig{Runs: 1, Load: -1}.Validate(),
		PartitionConfig{Size: 0, Iterations: 1, Runs: 1, Slowdown: 1}.Validate(),
		PartitionConfig{Size: 1, Iterations: 1, Runs: 1, Slowdown: 65}.Validate(),
	} {
		if err == nil || !strings.HasPrefix(err.Error(), "--") {
			t.Errorf("%v: want an error naming its flag", err)
		}
	}
	if err := (PartitionConfig{Size: 1, Iterations: 1, Runs: 1, Slowdown: 1}).Validate(); err != nil {
		t.Error(err)
	}
}

func second[T any](_ T, err error) error { return err }

// TestAsked: a quick experiment shortens what was not given, and keeps
// what was; a wrong flag is named.
func TestAsked(t *testing.T) {
	q := QoSAsked{Low: "background", High: "user-interactive", Work: "fib:34", Load: 2, Runs: 5, Quick: true}
	if cfg, err := q.Config(1); err != nil || cfg.Fib != 34 || !cfg.SizeFib || cfg.Runs != 3 || cfg.CPU != 1 {
		t.Errorf("quick: %+v, %v", cfg, err)
	}
	q.WorkGiven, q.RunsGiven = true, true
	if cfg, err := q.Config(1); err != nil || cfg.Fib != 34 || cfg.SizeFib || cfg.Runs != 5 {
		t.Errorf("quick, work and runs given: %+v, %v", cfg, err)
	}
	q.Work = "fib:99"
	if _, err := q.Config(1); err == nil || !strings.HasPrefix(err.Error(), "--work") {
		t.Errorf("fib:99: %v", err)
	}
	topo, err := topology.Read("/")
	if err != nil {
		t.Skipf("this machine's topology cannot be read: %v", err)
	}
	p := PartitionAsked{Chunks: "4,16", Slowdown: 3, Size: 1 << 22, Iterations: 10, Runs: 5, Quick: true}
	cfg, err := p.Config(topo)
	if err != nil || cfg.Size != 1<<20 || cfg.Runs != 7 || !cfg.CPUs.Equal(topo.Usable()) {
		t.Errorf("quick, every usable CPU: %+v, %v", cfg, err)
	}
	p.CPUs = "0-4095"
	if _, err := p.Config(topo); err == nil || !strings.Contains(err.Error(), "are online and allowed") {
		t.Errorf("--cpus beyond the machine: %v", err)
	}
}

// TestPartitionUnused: a slowing flag given is named as unused, with the
// reason, only where the slow CPUs were not emulated.
func TestPartitionUnused(t *testing.T) {
	a := PartitionAsked{Slowdown: 2, SlowBy: "load", SlowdownGiven: true, SlowByGiven: true}
	res := &PartitionResult{How: "the machine has slow cores"}
	if got := a.Unused(res); len(got) != 2 || got[0] != "--slowdown 2 is not used: the machine has slow cores" || got[1] != "--slow-by load is not used: the machine has slow cores" {
		t.Errorf("not emulated: %q", got)
	}
	res.Emulated = true
	if got := a.Unused(res); len(got) != 0 {
		t.Errorf("emulated: %q", got)
	}
	q := QoSAsked{Low: "background", High: "user-interactive", Work: "fib:30", Load: 1, Runs: 1, Out: t.TempDir() + "/f\x00"}
	if _, err := q.Config(0); err == nil || !strings.HasPrefix(err.Error(), "--out: ") {
		t.Errorf("an --out that cannot be made: %v", err)
	}
}
