package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// A fixture machine whose target CPU 3 goes offline between samples and
// comes back: the event, its time (from /proc/uptime) and the residency
// before and after are recorded.
func TestTargetGoesOffline(t *testing.T) {
	root := t.TempDir()
	cpuDir := filepath.Join(root, "sys", "devices", "system", "cpu")
	if err := os.MkdirAll(cpuDir, 0o755); err != nil {
		t.Fatal(err)
	}
	online := func(s string) { os.WriteFile(filepath.Join(cpuDir, "online"), []byte(s+"\n"), 0o644) }
	uptime := func(s string) { os.WriteFile(filepath.Join(root, "proc", "uptime"), []byte(s+" 0.00\n"), 0o644) }
	w := newWatcher(Options{PID: 100, Root: fsroot.Root(root), Mask: cpuset.Of(3)})

	online("0-3")
	fakeProc(t, root, 100, 100, 10, 500, 3)
	uptime("10.00")
	w.sample()
	fakeProc(t, root, 100, 100, 20, 500, 3) // ran on the target
	uptime("10.50")
	w.sample()
	online("0-2") // hot-unplug: the kernel moves the thread
	fakeProc(t, root, 100, 100, 30, 500, 1)
	uptime("11.00")
	w.sample()
	fakeProc(t, root, 100, 100, 40, 500, 2)
	uptime("11.50")
	w.sample()
	online("0-3")
	fakeProc(t, root, 100, 100, 50, 500, 2)
	uptime("12.00")
	w.sample()

	o := w.result().TargetOffline
	if o == nil {
		t.Fatal("no offline event recorded")
	}
	if !o.CPUs.Equal(cpuset.Of(3)) || o.AtS != 1.0 || !o.Seen.Equal(cpuset.Range(0, 2)) || o.AtEnd {
		t.Errorf("event %+v, want CPU 3 at 1.0 s with 0-2 online", o)
	}
	if o.OnlineAgainS == nil || *o.OnlineAgainS != 2.0 {
		t.Errorf("online again at %v, want 2.0 s", o.OnlineAgainS)
	}
	if o.Before.Running != 1 || o.Before.OnTarget != 1 || o.After.Running != 3 || o.After.OnTarget != 0 {
		t.Errorf("before %+v, after %+v: want 1 of 1 on target, then 0 of 3", o.Before, o.After)
	}
	want := "CPU 3 went offline at 1.0 s; the work ran elsewhere from then on (on target 100.0% of 1 running samples before, 0.0% of 3 running samples after; CPU 3 was online again at 2.0 s, the mask was not put back)"
	if got := o.String(); got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
}

func TestReadOnceSeesAnOfflineTarget(t *testing.T) {
	root := t.TempDir()
	cpuDir := filepath.Join(root, "sys", "devices", "system", "cpu")
	os.MkdirAll(cpuDir, 0o755)
	os.WriteFile(filepath.Join(cpuDir, "online"), []byte("0-2\n"), 0o644)
	fakeProc(t, root, 100, 100, 10, 500, 1)
	res := ReadOnce(Options{PID: 100, Root: fsroot.Root(root), Mask: cpuset.Of(3)})
	if o := res.TargetOffline; o == nil || !o.AtEnd || res.Samples != 1 || len(res.Threads) != 1 || res.Threads[0].LastCPU != 1 {
		t.Errorf("ReadOnce = %+v (offline %+v)", res, o)
	}
	os.WriteFile(filepath.Join(cpuDir, "online"), []byte("0-3\n"), 0o644)
	if res := ReadOnce(Options{PID: 100, Root: fsroot.Root(root), Mask: cpuset.Of(3)}); res.TargetOffline != nil {
		t.Errorf("an online target recorded as offline: %+v", res.TargetOffline)
	}
}

// ReadOnce runs after every unwatched run of a suite: a file it left open
// would pile up, run after run, until the process runs out of descriptors
// (and every fork pays for closing them).
func TestReadOnceLeavesNoFileOpen(t *testing.T) {
	root := t.TempDir()
	// The files open under the fixture tree, so that no other file of the
	// test binary (one a finalizer closes later) counts.
	open := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("needs /proc/self/fd to count open files: ", err)
		}
		n := 0
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, root+"/") {
				n++
			}
		}
		return n
	}
	cpuDir := filepath.Join(root, "sys", "devices", "system", "cpu")
	os.MkdirAll(cpuDir, 0o755)
	os.WriteFile(filepath.Join(cpuDir, "online"), []byte("0-3\n"), 0o644)
	fakeProc(t, root, 100, 100, 10, 500, 1)
	opts := Options{PID: 100, Root: fsroot.Root(root), Mask: cpuset.Of(1)}
	for range 10 {
		if res := ReadOnce(opts); len(res.Threads) != 1 {
			t.Fatalf("ReadOnce saw %d threads, want 1", len(res.Threads))
		}
	}
	if n := open(); n != 0 {
		t.Errorf("10 calls of ReadOnce left %d of the fixture's files open", n)
	}
}
