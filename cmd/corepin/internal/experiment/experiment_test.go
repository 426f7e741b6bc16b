package experiment

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/internal/tree"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/sched"
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
	hybrid, err := topology.Read("../../../../topology/testdata/machines/intel-hybrid-4p8e")
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
	l, err := startLoad("", cpuset.Of(first), 2, false)
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

// The load of the "apart" condition is in sessions of its own, one each.
func TestLoadApartHasItsOwnSessions(t *testing.T) {
	first := testcpu.Usable(t).First()
	l, err := startLoad("", cpuset.Of(first), 2, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	for _, p := range l.procs {
		if sid, err := unix.Getsid(p.Pid); err != nil || sid != p.Pid {
			t.Errorf("competing process %d is in session %d (%v)", p.Pid, sid, err)
		}
	}
}

// With the load in other sessions, where autogroup would give each of
// them as much of the CPU as corepin's whole session, the low and the high
// level must still differ: the high level's key thread (nice -10) gets a
// cpu cgroup of its weight, about 80% of the CPU beside two busy sessions;
// the low one (nice 10) stays in corepin's session (see
// tree.WeighThread), a third of it. Without the weight both got a third
// (0.93× here).
func TestQoSRatioHoldsWithLoadApart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the QoS experiment")
	}
	if !sched.NiceLowering().Supported {
		t.Skip("needs to lower nice (CAP_SYS_NICE)")
	}
	cpu := testcpu.Target(t)
	// The work is sized as --quick sizes it: long enough, in the kernel's
	// ticks, for a level to act.
	res, err := RunQoS(context.Background(), QoSConfig{CPU: cpu, Levels: []qos.Level{qos.Background, qos.UserInteractive},
		Load: 2, Fib: 34, SizeFib: true, Runs: 1, OnlyLoaded: true})
	if err != nil {
		t.Fatal(err)
	}
	high := res.Levels[1]
	t.Logf("%s: ratio %s here, %s apart; scope %q %v %v", res.Work, fmtTimes(res.RatioLoaded), fmtTimes(res.RatioLoadedApart), high.PriorityScope, high.Notes, res.Notes)
	if high.PriorityScope == tree.ScopeAutogroup && len(high.Notes) > 0 {
		t.Skipf("no cpu cgroup for the key thread here: %v", high.Notes)
	}
	if res.RatioLoaded == nil || res.RatioLoadedApart == nil || *res.RatioLoadedApart < 1.5 || *res.RatioLoaded < 1.5 {
		t.Errorf("background/user-interactive: %s with the load here, %s with it in other sessions, want both >= 1.5",
			fmtTimes(res.RatioLoaded), fmtTimes(res.RatioLoadedApart))
	}
}
