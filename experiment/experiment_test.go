package experiment

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/topology"
)

// The test binary doubles as the competing process: it answers corepin's
// helper verbs.
func TestMain(m *testing.M) {
	launch.Dispatch(os.Args)
	os.Exit(m.Run())
}

func TestFibAnswer(t *testing.T) {
	for n, want := range map[int]uint64{1: 1, 2: 1, 10: 55, 34: 5702887} {
		if fib(n) != want || fibAnswer(n) != want {
			t.Errorf("fib(%d) = %d / %d, want %d", n, fib(n), fibAnswer(n), want)
		}
	}
}

func TestChooseSlow(t *testing.T) {
	hybrid, err := topology.Read("../topology/testdata/machines/intel-hybrid-4p8e")
	if err != nil {
		t.Fatal(err)
	}
	var r PartitionResult
	if err := r.chooseSlow(PartitionConfig{CPUs: cpuset.MustParse("0-1,8-9"), Slowdown: 3, Topology: hybrid}); err != nil {
		t.Fatal(err)
	}
	if r.Emulated || r.SlowCPUs.String() != "8-9" || r.FastCPUs.String() != "0-1" {
		t.Errorf("on a hybrid machine: slow %s, fast %s, emulated %v", r.SlowCPUs, r.FastCPUs, r.Emulated)
	}
	r = PartitionResult{}
	if err := r.chooseSlow(PartitionConfig{CPUs: cpuset.MustParse("0-3"), Slowdown: 3}); err != nil || !r.Emulated || r.SlowCPUs.String() != "2-3" {
		t.Errorf("equal cores: slow %s, emulated %v, %v", r.SlowCPUs, r.Emulated, err)
	}
	r = PartitionResult{}
	if err := r.chooseSlow(PartitionConfig{CPUs: cpuset.MustParse("0-3"), SlowCPUs: cpuset.Of(4), Slowdown: 3}); err == nil {
		t.Error("slow CPUs outside the CPUs accepted")
	}
}

func TestLoadIsPinnedAndStops(t *testing.T) {
	first := testcpu.Usable(t).First()
	l, err := startLoad("", cpuset.Of(first), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.procs) != 2 {
		t.Fatalf("%d processes", len(l.procs))
	}
	for _, p := range l.procs {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid) + "/status")
		if err != nil || !strings.Contains(string(data), fmt.Sprintf("Cpus_allowed_list:\t%d\n", first)) {
			t.Errorf("competing process %d is not pinned to CPU %d", p.Pid, first)
		}
	}
	l.Stop()
	for _, p := range l.procs {
		if _, err := os.Stat("/proc/" + strconv.Itoa(p.Pid)); err == nil {
			t.Errorf("process %d still exists after Stop", p.Pid)
		}
	}
}
