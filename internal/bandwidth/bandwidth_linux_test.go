package bandwidth

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/sched"
)

// newV1 makes a limit on cgroup v1, or skips, naming what the machine
// lacks.
func newV1(t *testing.T, quota, period int) *Limit {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a cpu cgroup")
	}
	l, err := New(quota, period)
	if errors.Is(err, ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Skipf("cannot make a cpu cgroup: %v", err)
	}
	if l.V2() {
		l.Remove()
		t.Skip("cgroup v2: one thread cannot join a cgroup apart from its process")
	}
	t.Cleanup(func() {
		if _, err := os.Stat(l.dir); err == nil {
			l.Remove()
		}
	})
	return l
}

// onThread runs f on a thread of its own, pinned to cpu when cpu >= 0,
// that ends when f returns; it returns f's error.
func onThread(cpu int, f func() error) error {
	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if sched.Gettid() == sched.Getpid() {
			// The main thread never ends: hold it while another is found.
			errc <- onThread(cpu, f)
			runtime.UnlockOSThread()
			return
		}
		if cpu >= 0 {
			if err := sched.SetAffinity(0, cpuset.Of(cpu)); err != nil {
				errc <- err
				return
			}
		}
		errc <- f()
	}()
	return <-errc
}

// cpuCgroup is the cpu controller's path of a thread of this process.
func cpuCgroup(tid int) (string, error) {
	own, err := cgroupfs.ReadProcCgroup(fsroot.Host, fmt.Sprintf("self/task/%d", tid))
	if err != nil {
		return "", err
	}
	return own["cpu"], nil
}

// waitGone waits until the cgroup no longer lists id: a thread that
// returned is destroyed by the runtime a moment later.
func waitGone(t *testing.T, l *Limit, id int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		in, err := l.members()
		if err != nil {
			t.Fatal(err)
		}
		if !in[id] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d is still in the cgroup 10 s after it ended", id)
		}
		time.Sleep(time.Millisecond)
	}
}

// A member that ended inside the cgroup is left alone by Remove (its
// TID may be another thread's by now) and does not keep the cgroup from
// being removed; a member still alive goes back where it was.
func TestRemoveMovesBackOnlyLivingMembers(t *testing.T) {
	l := newV1(t, -1, 100000)
	var ended int
	if err := onThread(-1, func() error {
		ended = sched.Gettid()
		return l.AddThread(ended)
	}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, l, ended)
	alive, release := make(chan error), make(chan struct{})
	var tid int
	var before string
	go func() {
		alive <- onThread(-1, func() error {
			tid = sched.Gettid()
			var err error
			if before, err = cpuCgroup(tid); err == nil {
				err = l.AddThread(tid)
			}
			alive <- err
			<-release
			return nil
		})
	}()
	if err := <-alive; err != nil {
		t.Fatal(err)
	}
	removed := l.Remove()
	after, err := cpuCgroup(tid)
	close(release)
	<-alive
	if removed != nil {
		t.Errorf("Remove with a member that ended: %v", removed)
	}
	if _, err := os.Stat(l.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cgroup %s is still there: %v", l.dir, err)
	}
	if err != nil || after != before {
		t.Errorf("the living member is in cpu cgroup %q after Remove, was in %q (%v)", after, before, err)
	}
}

// New removes the empty bandwidth cgroups of corepins that no longer
// run, and keeps those of one that does.
func TestNewSweepsDeadCorepinsCgroups(t *testing.T) {
	l := newV1(t, -1, 100000)
	parent := filepath.Dir(l.dir)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	self := cgroupfs.SelfMark()
	gone := cgroupfs.RunMark{Owner: procfs.Process{PID: dead.Process.Pid, Start: 1}, Namespace: self.Namespace}
	stale := filepath.Join(parent, fmt.Sprintf("corepin-bandwidth-%s-1", gone))
	living := filepath.Join(parent, fmt.Sprintf("corepin-bandwidth-%s-999999", self))
	for _, d := range []string{stale, living} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	defer os.Remove(living)
	defer os.Remove(stale)
	l2 := newV1(t, -1, 100000)
	l2.Remove()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cgroup of PID %d, which ended, is still there: %v", dead.Process.Pid, err)
	}
	if _, err := os.Stat(living); err != nil {
		t.Errorf("the cgroup of this process, which runs, was removed: %v", err)
	}
}

// bursts spins on the calling thread for d of wall time and returns how
// long it ran each time between two stalls of more than 200 µs.
func bursts(d time.Duration) []time.Duration {
	var out []time.Duration
	start := time.Now()
	burst, last := start, start
	for last.Sub(start) < d {
		now := time.Now()
		if now.Sub(last) > 200*time.Microsecond {
			out = append(out, last.Sub(burst))
			burst = now
		}
		last = now
	}
	return out
}

// With a pacer on its CPU, a thread held to 1 ms of every 3 ms runs
// about 1 ms at a time (the quota, and the pacer's interval at most on
// top), not a scheduler tick's worth. The cgroup has the largest weight,
// so that others on this shared machine barely take from it. (That the
// time is a third is the speed probe's test.)
func TestPacerKeepsTheQuotaFine(t *testing.T) {
	cpu := testcpu.Target(t)
	testcpu.Alone(t)
	l := newV1(t, 1000, 3000)
	if err := l.MaxWeight(); err != nil {
		t.Fatal(err)
	}
	measure := func() (median time.Duration, share float64, err error) {
		err = onThread(cpu, func() error {
			if err := l.AddThread(sched.Gettid()); err != nil {
				return err
			}
			const d = 300 * time.Millisecond
			b := bursts(d)
			if len(b) < 3 {
				return fmt.Errorf("%d bursts in %s: the limit did not stop the thread", len(b), d)
			}
			b = b[1:] // the first began before the thread joined
			var sum time.Duration
			for _, x := range b {
				sum += x
			}
			slices.Sort(b)
			median, share = b[len(b)/2], float64(sum)/float64(d)
			return nil
		})
		return median, share, err
	}
	alone, aloneShare, err := measure()
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Pace(cpu)
	if err != nil {
		t.Fatal(err)
	}
	paced, pacedShare, err := measure()
	p.Stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held to 1 ms of 3 ms: median run %v without a pacer (%.2f of the time), %v with one (%.2f)", alone, aloneShare, paced, pacedShare)
	if paced > time.Millisecond+2*PaceInterval {
		t.Errorf("with a pacer the limited thread ran %v at a time, want about the 1 ms quota", paced)
	}
}
