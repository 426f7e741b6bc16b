package speed

import (
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/bandwidth"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/sched"
)

// The probe's period of CFS bandwidth: 1 ms of every 3 ms. A probe of 30
// ms at full speed spans thirty periods, so where in a period it starts
// moves its rate by a few percent at most.
const (
	quotaUS  = 1000
	periodUS = 3000
	probe    = 30e6 // ns
	// freeOnCPU is the least share of its time on the CPU a free reading
	// needs for its pair to count.
	freeOnCPU = 0.9
)

// On a CPU limited by CFS bandwidth to a third, the probe reads a third
// of what it reads on the same CPU without the limit, and says it lacked
// the CPU rather than that the core was slow. The probe's thread sits in
// a cgroup of the largest weight, so that other work on this shared
// machine barely takes from it, and the quota is toggled between the two
// readings of each pair: the host's own slowdowns, which last longer
// than a pair, cancel in the pair's ratio. Those shorter than a pair do
// not: on a shared virtual machine one pair reads anywhere from 0.17 to
// 0.49, and on some days the median of fifteen sits at 0.25–0.27 for
// hours while the time on the CPU holds at 0.33–0.34: after each wait the
// limited probe resumes slower than the free one ran (the host's own
// scheduling of the idle virtual CPU). So the median is judged against
// the probe's own time on the CPU, within 0.6–1.25 of it: a probe blind to
// the limit reads near 3 times it, one that counted the wait twice near a
// third of it; and the time on the CPU is judged on its own, near a third.
// A pair whose free reading lacked the CPU (beside go test's other
// packages, whose work lands on the same target) is left out: measured,
// such pairs read up to 1.5, and their median 1.32 of the time on the CPU.
func TestProbeReadsCFSBandwidthLimit(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a cpu cgroup")
	}
	testcpu.Alone(t)
	cpu := testcpu.Target(t)
	var ratios, onCPU []float64
	var tries int
	var limitErr error
	var throttled time.Duration
	err := On(cpuset.Of(cpu), func() {
		l, err := bandwidth.New(-1, periodUS)
		if err != nil {
			limitErr = err
			return
		}
		defer l.Remove()
		if l.V2() {
			limitErr = errors.New("cgroup v2 moves the whole test process, not the probe's thread")
			return
		}
		if limitErr = l.MaxWeight(); limitErr != nil {
			return
		}
		if limitErr = l.AddThread(sched.Gettid()); limitErr != nil {
			return
		}
		p := Calibrate(probe)
		for tries = 0; tries < 40 && len(ratios) < 9; tries++ { // nine pairs: the band below is wide, the median of nine steady
			if limitErr = l.Set(-1); limitErr != nil {
				return
			}
			free := p.Read()
			if limitErr = l.Set(quotaUS); limitErr != nil {
				return
			}
			slow := p.Read()
			if free.OnCPU == nil || *free.OnCPU < freeOnCPU {
				continue // the free reading lacked the CPU: the pair's ratio says nothing
			}
			ratios, onCPU = append(ratios, slow.Rate/free.Rate), append(onCPU, *slow.OnCPU)
		}
		if throttled, limitErr = l.Throttled(); limitErr != nil {
			return
		}
		if err := l.Remove(); err != nil {
			t.Errorf("removing the limit: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case errors.Is(limitErr, bandwidth.ErrUnavailable):
		t.Skip(limitErr)
	case limitErr != nil:
		t.Skipf("cannot limit the probe's thread by CFS bandwidth: %v", limitErr)
	}
	if len(ratios) < 5 {
		t.Skipf("in %d pairs the free reading had the CPU less than %.2f of its time in all but %d: the target is too busy to judge", tries, freeOnCPU, len(ratios))
	}
	ratio, on := med(ratios), med(onCPU)
	t.Logf("limited to 1/3, the probe read %.3f of its free rate (pairs: %.3f, %d left out); on the CPU %.2f of its time", ratio, ratios, tries-len(ratios), on)
	if ratio < 0.6*on || ratio > 1.25*on {
		t.Errorf("the probe on a CPU limited to 1/3 read %.3f of its free rate, with the CPU %.2f of its time: want 0.6–1.25 of that", ratio, on)
	}
	// The quota is a ceiling no other process can raise; below a third,
	// others on the CPU took the probe's turn, which the cgroup's
	// throttled time tells from a limit that did not act.
	if on > 0.42 {
		t.Errorf("the limited probe had the CPU %.2f of its time, above its quota of a third", on)
	}
	if throttled <= 0 {
		t.Errorf("the limit's cgroup was throttled for %v: the limit did not act", throttled)
	}
}

func med(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// The loop is not removed, and its count follows the duration asked at
// the best rate the calibration saw: the rate depends on the machine's
// other work, the count's relation to it does not.
func TestCalibrateScalesWithDuration(t *testing.T) {
	cpu := testcpu.Target(t)
	var short, long Probe
	err := On(cpuset.Of(cpu), func() { short, long = Calibrate(time.Millisecond), Calibrate(10*time.Millisecond) })
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Probe{short, long} {
		if p.Iterations < 1000 || p.Rate <= 0 {
			t.Fatalf("calibration %+v: the loop did no work", p)
		}
		if want := int(p.Rate * p.Duration.Seconds()); p.Iterations != max(want, 1) {
			t.Errorf("calibration %+v: %d iterations, want %d (the best rate over the duration asked)", p, p.Iterations, want)
		}
	}
}

// On refuses CPUs the thread cannot have, and f does not run.
func TestOnRefusesCPUsOutsideTheMask(t *testing.T) {
	testcpu.Target(t)
	ran := false
	err := On(cpuset.Of(4095), func() { ran = true })
	if err == nil || ran {
		t.Errorf("On(CPU 4095): err %v, ran %v; want an error and no run", err, ran)
	}
}
