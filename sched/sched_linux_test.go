package sched

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
)

func TestParsePolicy(t *testing.T) {
	for in, want := range map[string]Policy{"other": Normal, "normal": Normal, "FIFO": FIFO, " rr ": RR, "batch": Batch, "idle": Idle} {
		if got, err := ParsePolicy(in); err != nil || got != want {
			t.Errorf("ParsePolicy(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParsePolicy("fast"); err == nil {
		t.Error("ParsePolicy(fast) succeeded")
	}
	if Policy(9).String() != "policy9" || !FIFO.Realtime() || Batch.Realtime() {
		t.Error("String/Realtime are wrong")
	}
}

// onThread runs f on a locked thread that is thrown away afterwards.
func onThread(f func()) { onThrowawayThread(f) }

func TestAffinityRoundTrip(t *testing.T) {
	last := otherCPU(t)
	onThread(func() {
		if err := SetAffinity(0, cpuset.Of(last)); err != nil {
			t.Fatal(err)
		}
		got, err := GetAffinity(0)
		if err != nil || !got.Equal(cpuset.Of(last)) {
			t.Errorf("GetAffinity = %s, %v; want %d", got, err, last)
		}
		if cpu, err := GetCPU(); err != nil || cpu != last {
			t.Errorf("GetCPU = %d, %v; want %d", cpu, err, last)
		}
		// A mask holding only CPUs that do not exist is refused; a mixed
		// one is cut down silently, which is why corepin reads back.
		if err := SetAffinity(0, cpuset.Of(4000)); !errors.Is(err, unix.EINVAL) {
			t.Errorf("SetAffinity({4000}) = %v, want EINVAL", err)
		}
		if err := SetAffinity(0, cpuset.Of(last, 4000)); err != nil {
			t.Fatal(err)
		}
		if got, _ := GetAffinity(0); !got.Equal(cpuset.Of(last)) {
			t.Errorf("{%d,4000} reads back as %s", last, got)
		}
	})
}

func TestNiceIsTranslated(t *testing.T) {
	onThread(func() {
		if err := SetNice(0, 5); err != nil {
			t.Fatal(err)
		}
		n, err := GetNice(0)
		if err != nil || n != 5 {
			t.Errorf("GetNice = %d, %v; want 5 (not the raw 20-nice)", n, err)
		}
		a, err := GetAttr(0)
		if err != nil || a.Nice != 5 || a.Policy != Normal {
			t.Errorf("GetAttr = %+v, %v", a, err)
		}
	})
}

func TestSetAttrErrorsKeepErrno(t *testing.T) {
	onThread(func() {
		err := SetAttr(0, Attr{Policy: Normal, Priority: 1})
		if !errors.Is(err, unix.EINVAL) || ErrnoName(err) != "EINVAL" {
			t.Errorf("priority with SCHED_OTHER: %v (%s), want EINVAL", err, ErrnoName(err))
		}
		if err := SetAttr(999999999, Attr{}); !errors.Is(err, unix.ESRCH) {
			t.Errorf("a TID that does not exist: %v, want ESRCH", err)
		}
	})
}

func TestUclampProbeMatchesARealRequest(t *testing.T) {
	onThread(func() {
		err := SetUclamp(0, 0, UclampMax, false)
		if Uclamp().Supported != (err == nil) {
			t.Errorf("probe says %v, a request gave %v", Uclamp(), err)
		}
		if !Uclamp().Supported && ErrnoName(err) != "EOPNOTSUPP" {
			t.Errorf("uclamp refused with %v, want EOPNOTSUPP", err)
		}
	})
}

func TestThreadCPUTime(t *testing.T) {
	onThread(func() {
		tid := Gettid()
		// Spin until the thread's own clock reaches 15 ms; the wall-clock
		// bound only keeps a broken clock from hanging the test.
		var own time.Duration
		var err error
		for deadline := time.Now().Add(5 * time.Second); own < 15*time.Millisecond && time.Now().Before(deadline); {
			own, err = ThreadCPUTime(0)
		}
		if err != nil || own < 15*time.Millisecond {
			t.Errorf("own CPU time %v, %v", own, err)
		}
		byTID, err := ThreadCPUTime(tid)
		if err != nil || byTID < own {
			t.Errorf("CPU time by TID %v, %v; own %v", byTID, err, own)
		}
		if !ThreadAlive(tid) || ThreadAlive(999999999) {
			t.Error("ThreadAlive is wrong")
		}
	})
}

// A mask is read a word at a time: the CPUs at the words' edges, and one
// far past the first word, come back in order.
func TestCPUsInReadsEveryWord(t *testing.T) {
	want := []int{0, 1, 63, 64, 65, 127, 1023, 4095}
	set := unix.NewCPUSet(4096)
	for _, c := range want {
		set.Set(c)
	}
	got := cpusIn(set)
	if cpuset.Of(got...).String() != cpuset.Of(want...).String() || len(got) != len(want) {
		t.Errorf("cpusIn = %v, want %v", got, want)
	}
	if got := cpusIn(unix.NewCPUSet(1024)); len(got) != 0 {
		t.Errorf("cpusIn of an empty mask = %v", got)
	}
}

// The tick is one of the periods CONFIG_HZ can have: 100 to 1000 Hz, and
// 1024 Hz on Alpha, 24, 32, 48 and 64 on some boards.
func TestTick(t *testing.T) {
	tick, err := Tick()
	if err != nil {
		t.Fatal(err)
	}
	if hz := time.Second / tick; hz < 24 || hz > 1024 {
		t.Errorf("tick %v: %d Hz", tick, hz)
	}
}
