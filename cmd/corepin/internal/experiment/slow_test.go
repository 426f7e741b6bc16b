package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/bandwidth"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/speed"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/sched"
)

// twoCPUs is a fast and a slow CPU for the emulation, or a skip.
func twoCPUs(t *testing.T) cpuset.Set {
	t.Helper()
	cpus := testcpu.Usable(t)
	if cpus.Len() < 2 {
		t.Skipf("needs two usable CPUs, has %s", cpus)
	}
	return cpuset.Of(cpus.First(), cpus.Last())
}

// startBandwidthOrSkip starts the bandwidth emulation on the upper CPU of
// cpus, or skips, naming what the machine lacks.
func startBandwidthOrSkip(t *testing.T, cpus cpuset.Set) (*slowCPUs, *PartitionResult) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make cpu cgroups")
	}
	testcpu.Alone(t) // the emulation's cgroups have the largest weight
	res := &PartitionResult{}
	cfg := PartitionConfig{CPUs: cpus, Slowdown: 3, SlowBy: SlowByBandwidth}
	if err := res.chooseSlow(cfg); err != nil {
		t.Fatal(err)
	}
	s, err := startSlow(cfg, res)
	if errors.Is(err, bandwidth.ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Skipf("cannot emulate a slow CPU by CFS bandwidth here: %v", err)
	}
	return s, res
}

// ownCPUCgroup is the cpu line of this process's /proc/self/cgroup.
func ownCPUCgroup(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if parts := strings.SplitN(line, ":", 3); len(parts) == 3 && slices.Contains(strings.Split(parts[1], ","), "cpu") {
			return line
		}
	}
	return ""
}

// ownBandwidthCgroups are the bandwidth cgroups this process made that
// are still there.
func ownBandwidthCgroups() []string {
	h, err := cgroupfs.Find(fsroot.Host)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range h.Mounts {
		if m.Has("cpu") || m.Version == 2 {
			found, _ := filepath.Glob(filepath.Join(m.Dir, fmt.Sprintf("corepin-bandwidth-%d-*", os.Getpid())))
			out = append(out, found...)
		}
	}
	return out
}

// A worker of a CPU slowed by CFS bandwidth to 1/3 runs the speed probe
// at about a third of the rate the same CPU gives a fast CPU's worker:
// the slowdown is the one stated, not what competing processes happen to
// give. The two probes of each pair run back to back on the one CPU, so
// that the host's own slowdowns, which last longer than a pair, cancel;
// the shorter ones do not, and move the median of fifteen pairs by a few
// hundredths (0.281 was seen beside a loaded machine's builds, and on
// some days the limited probe resumes slower after each wait for hours),
// so the rate is judged within 0.6–1.25 of the probe's own time on the
// CPU — a worker the limit missed reads near 3 times it — and the time on
// the CPU, which the kernel keeps, at most 0.36: below a third, what
// else ran on the CPU took it, which the cgroup's throttled time tells
// from a limit that did not act (beside go test's other packages it read
// 0.21).
// Stopping the emulation removes its cgroups and puts this process back
// in its own.
func TestBandwidthSlowCPURunsAtTheStatedSpeed(t *testing.T) {
	cpus := twoCPUs(t)
	before := ownCPUCgroup(t)
	s, res := startBandwidthOrSkip(t, cpus)
	slow := res.SlowCPUs.First()
	var probe speed.Probe
	err := speed.On(cpuset.Of(slow), func() { probe = speed.Calibrate(witnessProbe) })
	var ratios, onCPU []float64
	for range 15 {
		if err != nil {
			break
		}
		var free, limited speed.Reading
		if free, err = s.read(probe, slow, false); err == nil {
			limited, err = s.read(probe, slow, true)
		}
		// The free reading's rate per second on the CPU: the host's steal
		// and the other packages' work on this CPU take from its wall
		// time (measured: free readings had the CPU 0.63–0.95 of their
		// time on a quiet machine, and pairs read up to 0.906 beside a
		// loaded one), not from the core's speed, which is what the
		// limited reading is compared with.
		freeRate := free.Rate
		if free.OnCPU != nil && *free.OnCPU > 0 {
			freeRate /= *free.OnCPU
		}
		ratios = append(ratios, limited.Rate/freeRate)
		if limited.OnCPU != nil {
			onCPU = append(onCPU, *limited.OnCPU)
		}
	}
	throttled, throttledErr := s.limit.Throttled()
	if stopErr := s.stop(); stopErr != nil {
		t.Errorf("stopping the emulation: %v", stopErr)
	}
	if err != nil {
		t.Fatal(err)
	}
	r, on := *medianPtr(ratios), medianPtr(onCPU)
	t.Logf("slowed to 1/3 by %d µs of %d µs: the probe read %.3f of the same CPU's unlimited rate per second on it (pairs %.3f), and had the CPU %.3f of its time",
		res.QuotaUS, res.PeriodUS, r, ratios, *on)
	if on != nil && (r < 0.6**on || r > 1.25**on) {
		t.Errorf("the slow CPU's worker ran at %.3f of the CPU's speed with the CPU %.3f of its time, want 0.6–1.25 of that", r, *on)
	}
	// The quota is a ceiling no other process can raise: the worker never
	// had more than a third (and a period's edge) of its time. Below it,
	// what other work on this CPU took is the machine's, not the
	// emulation's: the limit's own throttling says it acted.
	switch {
	case on == nil:
		t.Error("the slow CPU's worker's time on the CPU was not read")
	case *on > 0.36:
		t.Errorf("the slow CPU's worker had the CPU %.3f of its time, above its quota of a third", *on)
	}
	if throttled <= 0 || throttledErr != nil {
		t.Errorf("the bandwidth cgroup was throttled for %v (%v): the limit did not act", throttled, throttledErr)
	}
	if left := ownBandwidthCgroups(); len(left) > 0 {
		t.Errorf("cgroups left after the emulation stopped: %v", left)
	}
	if after := ownCPUCgroup(t); after != before {
		t.Errorf("this process is in cpu cgroup %q after the emulation, was in %q", after, before)
	}
}

// The experiment says which emulation it used, and measures the speed it
// gave; the ideal pinned static / best dynamic follows from the measured
// speeds: (fast CPUs + slow CPUs × s) / (all CPUs × s).
func TestPartitionSaysHowItSlowed(t *testing.T) {
	cpus := twoCPUs(t)
	for _, by := range []string{SlowByWork, SlowByLoad, SlowByBandwidth} {
		if by == SlowByBandwidth {
			s, _ := startBandwidthOrSkip(t, cpus) // skips without the cpu controller
			s.stop()
		}
		res, err := RunPartition(context.Background(), PartitionConfig{CPUs: cpus, Slowdown: 3, SlowBy: by,
			Chunks: []int{4}, Size: 1 << 14, Iterations: 2, Runs: 1})
		if err != nil {
			t.Fatalf("--slow-by %s: %v", by, err)
		}
		if res.SlowBy != by || res.SlowSpeed == nil || len(res.SlowSpeedRounds) != 1 {
			t.Errorf("--slow-by %s: the result says slow by %q, speed %v", by, res.SlowBy, res.SlowSpeed)
		}
		want := map[string]string{SlowByWork: "by work", SlowByLoad: "competing", SlowByBandwidth: "CFS bandwidth"}[by]
		if !strings.Contains(res.How, want) {
			t.Errorf("--slow-by %s: how %q does not say %q", by, res.How, want)
		}
		s := res.SingleMs / res.SingleSlowMs
		if ideal := (1 + s) / (2 * s); abs(res.IdealPinnedOverBest/ideal-1) > 1e-9 {
			t.Errorf("--slow-by %s: ideal pinned static / best dynamic %.3f, want %.3f for a slow CPU at %.3f", by, res.IdealPinnedOverBest, ideal, s)
		}
		if left := ownBandwidthCgroups(); len(left) > 0 {
			t.Errorf("--slow-by %s: cgroups left after the experiment: %v", by, left)
		}
	}
	var r PartitionResult
	if err := r.chooseSlow(PartitionConfig{CPUs: cpus, Slowdown: 3, SlowBy: "magic"}); err == nil {
		t.Error("--slow-by magic accepted")
	}
}

func abs(v float64) float64 { return max(v, -v) }

// The slowdown by work stretches a chunk that starts on a slow CPU to F
// times its CPU time, running it once, and leaves a fast CPU's chunk as
// it is. The stretch is measured in the thread's CPU time, which the
// spin counts itself, so the bound cannot fail by the machine's load.
func TestWorkStretchesTheSlowCPUsChunks(t *testing.T) {
	cpus := twoCPUs(t)
	fast, slow := cpus.First(), cpus.Last()
	s := &slowCPUs{cpus: cpuset.Of(slow), work: 3}
	const chunk = 20 * time.Millisecond
	for _, c := range []struct {
		cpu   int
		least time.Duration
		most  time.Duration
	}{{slow, 3 * chunk, 0}, {fast, chunk, 2 * chunk}} {
		calls := 0
		body := s.body(func(lo, hi int) { calls++; testcpu.Spin(chunk) })
		var used time.Duration
		err := speed.On(cpuset.Of(c.cpu), func() {
			t0, _ := sched.ThreadCPUTime(0)
			body(0, 1)
			t1, _ := sched.ThreadCPUTime(0)
			used = t1 - t0
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("CPU %d: a %v chunk cost %v of CPU time in %d call(s)", c.cpu, chunk, used, calls)
		if calls != 1 || used < c.least || (c.most > 0 && used > c.most) {
			t.Errorf("CPU %d (slow CPUs %s): a %v chunk cost %v in %d call(s), want one call and %v–%v", c.cpu, s.cpus, chunk, used, calls, c.least, c.most)
		}
	}
}
