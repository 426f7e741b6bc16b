package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/account"
	"corepin.dev/corepin/internal/busy"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// The helpers of these tests, run as the test binary with
// COREPIN_LAUNCH_HELPER set; COREPIN_TEST_DIR is where they leave markers.
var treeHelpers = map[string]func() int{
	"doublefork": doubleFork,
	"mover":      mover,
	"treefacts":  treeFacts,
	"unseen":     unseen,
	"busythird":  busyThird,
	"launchwall": launchWall,
	"escaper":    escaper,
}

// escaper moves itself out of the run's cgroups into their parents, as a
// program run as root can, then uses about 0.3 s of CPU time and exits.
// With COREPIN_ESCAPE_AFTER (a duration) it first uses that much CPU time
// inside them.
func escaper() int {
	runtime.LockOSThread()
	if d, err := time.ParseDuration(os.Getenv("COREPIN_ESCAPE_AFTER")); err == nil {
		for start := busy.ThreadCPU(); busy.ThreadCPU()-start < d; {
		}
	}
	mounts, err := cgroupfs.ReadMounts(fsroot.Host)
	own, err2 := cgroupfs.ReadProcCgroup(fsroot.Host, "self")
	if err != nil || err2 != nil {
		return 2
	}
	moved := 0
	for _, m := range mounts {
		ctls := m.Controllers
		if m.Version == 2 {
			ctls = []string{""}
		}
		for _, ctl := range ctls {
			if dir := cgroupfs.HierarchyDir(m, own[ctl]); strings.Contains(filepath.Base(dir), "corepin-") {
				if cgroupfs.Write(filepath.Join(filepath.Dir(dir), "cgroup.procs"), strconv.Itoa(os.Getpid())) == nil {
					moved++
				}
			}
		}
	}
	if moved == 0 {
		return 3
	}
	for start := busy.ThreadCPU(); busy.ThreadCPU()-start < 300*time.Millisecond; {
	}
	return 0
}

// unseen is a command whose work the watcher's samples cannot see: it
// starts a child that spins for unseenWork of its own CPU time and waits
// for it. The test's watcher has a period longer than the run, so its
// only samples are its first, as the run starts, and its last, after the
// command exited; the child has ended before the last, so it is seen at
// most once and none of its time is counted. Its lifetime, not the
// machine's speed, puts it between the two samples.
func unseen() int {
	if os.Getenv("COREPIN_UNSEEN_CHILD") != "" {
		runtime.LockOSThread()
		for start := busy.ThreadCPU(); busy.ThreadCPU()-start < unseenWork; {
		}
		return 0
	}
	self, _ := os.Executable()
	child := exec.Command(self)
	child.Env = append(os.Environ(), "COREPIN_UNSEEN_CHILD=1")
	if child.Run() != nil {
		return 1
	}
	return 0
}

// unseenWork is the CPU time of unseen's child.
const unseenWork = 300 * time.Millisecond

// doubleFork starts a middle process that starts a mover and exits, so the
// mover is an orphan; it then waits until the mover has moved itself to
// every CPU and was put back on the target (by the watcher or the
// cgroup), and exits 0, or 1 when that did not happen in time.
func doubleFork() int {
	dir := os.Getenv("COREPIN_TEST_DIR")
	if os.Getenv("COREPIN_MIDDLE") == "" {
		self, _ := os.Executable()
		mid := exec.Command(self)
		mid.Env = append(os.Environ(), "COREPIN_MIDDLE=1")
		if err := mid.Run(); err != nil {
			return 1
		}
		want, _ := sched.GetAffinity(0)
		pid := waitMarker(filepath.Join(dir, "moved"))
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if got, err := sched.GetAffinity(pid); err == nil && got.Equal(want) {
				return 0
			}
		}
		return 1
	}
	self, _ := os.Executable()
	m := exec.Command(self)
	m.Env = append(os.Environ(), "COREPIN_LAUNCH_HELPER=mover")
	if err := m.Start(); err != nil {
		return 1
	}
	return 0 // the mover is now an orphan
}

// mover asks for every CPU, says so, and spins until it is ended.
func mover() int {
	all := cpuset.Range(0, 1023)
	sched.SetAffinity(0, all)
	got, _ := sched.GetAffinity(0)
	os.WriteFile(filepath.Join(os.Getenv("COREPIN_TEST_DIR"), "mask"), []byte(got.String()), 0o644)
	os.WriteFile(filepath.Join(os.Getenv("COREPIN_TEST_DIR"), "moved"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	for start := time.Now(); time.Since(start) < time.Hour; { // busy until ended
	}
	return 1
}

// treeFacts runs doubleFork under Run and prints what the report says, so
// that the test can do the same as nobody.
func treeFacts() int {
	rep, err := runDoubleFork(os.Getenv("COREPIN_TEST_DIR"), mustTarget())
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println(factsLine(rep))
	return 0
}

// factsLine sums up a run of the tree tests. wait-measured: the run's wait
// came from schedstat, and the watcher read some thread's sched file (its
// involuntary switches); not every thread's, since one that ends between
// the watcher's reads of its files has none, as the short-lived middle
// process can on a slow machine (once in the emulated arm64 guest).
func factsLine(rep *Report) string {
	readSched := rep.Watch != nil && slices.ContainsFunc(rep.Watch.Threads, func(s evidence.ThreadStat) bool { return s.Involuntary != nil })
	waited := rep.Sharing != nil && rep.Sharing.WaitS != nil && readSched
	return fmt.Sprintf("mechanism=%s exit=%d ended=%d left=%d followed=%v wait-measured=%v", rep.Tree.Mechanism, rep.ExitCode(),
		rep.Tree.Ended, rep.Tree.Left, rep.Watch != nil && len(rep.Watch.Threads) >= 2, waited)
}

func waitMarker(path string) int {
	for {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 {
			pid, _ := strconv.Atoi(string(data))
			return pid
		}
		time.Sleep(time.Millisecond)
	}
}

// mustTarget is where corepin would run: the prime target of the
// topology it reads.
func mustTarget() int {
	topo, err := topology.ReadForSelection("/")
	if err != nil {
		return 0
	}
	t, err := topo.Select("prime")
	if err != nil {
		return 0
	}
	return t.ExactCPU
}

func runDoubleFork(dir string, cpu int) (*Report, error) {
	self, _ := os.Executable()
	env := append(os.Environ(), "COREPIN_LAUNCH_HELPER=doublefork", "COREPIN_TEST_DIR="+dir)
	return Run(context.Background(), Config{
		Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, Args: []string{self}, Env: env,
		WatchPeriod: 20 * time.Millisecond, Grace: time.Second,
	})
}

// needsTwoCPUs skips where the target would have to share a CPU with
// everything else, and returns the target.
func needsTwoCPUs(t *testing.T) int {
	t.Helper()
	mask, err := sched.GetAffinity(0)
	if err != nil || mask.Len() < 2 {
		t.Skip("needs two usable CPUs")
	}
	return mustTarget()
}

// cgroupListing lists every directory of every mounted cgroup hierarchy
// that this process made (other tests run beside this one).
func cgroupListing(t *testing.T) []string {
	t.Helper()
	mounts, err := cgroupfs.ReadMounts("/")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range mounts {
		filepath.WalkDir(m.Dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), fmt.Sprintf("corepin-%d-", os.Getpid())) {
				out = append(out, path)
			}
			return nil
		})
	}
	slices.Sort(out)
	return out
}

func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !bytes.Contains(data, []byte(") Z ")) && !bytes.Contains(data, []byte(") X "))
}

// gone polls until pid no longer runs, for at most a second.
func gone(pid int) bool {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return false
}

// A double-forked child that moves itself to every CPU is an orphan: it is
// followed (corepin is its subreaper, or the cgroup holds it), put back on
// the target, counted among what was ended, and ended with the run.
func TestRunFollowsAndEndsADoubleForkedChild(t *testing.T) {
	cpu := needsTwoCPUs(t)
	before := cgroupListing(t)
	dir := t.TempDir()
	rep, err := runDoubleFork(dir, cpu)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(readFile(t, filepath.Join(dir, "moved")))
	t.Log(factsLine(rep), rep.Tree.Cgroup, rep.Tree.CPUSeconds, rep.Tree.PerCPUSeconds)
	if rep.ExitCode() != 0 {
		t.Errorf("the mover was not put back on CPU %d (exit %d); tree %+v", cpu, rep.ExitCode(), rep.Tree)
	}
	if rep.Watch == nil || !slices.ContainsFunc(rep.Watch.Threads, func(s evidence.ThreadStat) bool { return s.PID == pid }) {
		t.Errorf("the orphan %d was not followed: %+v", pid, rep.Watch)
	}
	if rep.Tree.Ended < 1 || rep.Tree.Left != 0 {
		t.Errorf("tree %+v: want the orphan ended and nothing left", rep.Tree)
	}
	if !gone(pid) {
		t.Errorf("the orphan %d still runs after the run", pid)
	}
	if os.Geteuid() == 0 && rep.Tree.Mechanism == MechanismProcessGroup {
		t.Logf("as root without a cgroup: %s", rep.Tree.NoCgroup)
	}
	if rep.Tree.Mechanism != MechanismProcessGroup {
		// The kernel confines the mover: its request for every CPU reads
		// back as the target alone.
		if got := readFile(t, filepath.Join(dir, "mask")); got != strconv.Itoa(cpu) {
			t.Errorf("in the run's cgroup a request for every CPU read back %s, want %d", got, cpu)
		}
		if !rep.Tree.CgroupRemoved {
			t.Errorf("the run's cgroup was not removed: %v", rep.Tree.Errors)
		}
	}
	if after := cgroupListing(t); !slices.Equal(before, after) {
		t.Errorf("cgroups before the run %v, after %v", before, after)
	}
}

// As nobody there is no cgroup: the process group and the subreaper hold
// the tree, the report says so, and the same orphan is followed and ended.
func TestRunAsNobodyKeepsToTheProcessGroup(t *testing.T) {
	needsTwoCPUs(t)
	cmd := nobody.Command(t, nobody.Executable(t))
	cmd.Env = append(os.Environ(), "COREPIN_LAUNCH_HELPER=treefacts", "COREPIN_TEST_DIR="+nobody.Dir(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	want := "mechanism=process-group exit=0 ended=1 left=0 followed=true wait-measured=true"
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("as nobody: %s\nwant %s", got, want)
	}
}

// At a timeout the whole tree ends, the shell's looping grandchild with
// it, and the command's end is the signal, not an exit code. Without a
// cgroup the process group and corepin's subreaping end it as well: a
// grandchild in a session of its own (setsid), orphaned when the shell
// dies, too; all of it at the SIGTERM, within the grace period, with no
// SIGKILL needed.
func TestRunTimeoutEndsTheWholeTree(t *testing.T) {
	cpu := needsTwoCPUs(t)
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("needs setsid (util-linux)")
	}
	before := cgroupListing(t)
	timeout, grace := time.Second, 5*time.Second
	if accel := os.Getenv("MACHINE_ACCEL"); accel != "" && accel != "kvm" {
		// Under TCG in a test/machines guest the shell takes more than a
		// second to start its children and write their markers (the
		// nocgroup guest's timeout came before the first marker's write),
		// so the tree the test ends would not be whole yet.
		timeout = 10 * time.Second
	}
	for _, noCgroup := range []bool{false, true} {
		dir := t.TempDir()
		loop, away := filepath.Join(dir, "loop"), filepath.Join(dir, "away")
		var out bytes.Buffer
		start := time.Now()
		rep, err := Run(context.Background(), Config{
			Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()},
			Args: []string{"sh", "-c", `sh -c 'while :; do :; done' & echo $! >` + loop +
				`; setsid sh -c 'echo $$ >` + away + `; exec sleep 30' & sleep 30 & wait; echo done`},
			Timeout: timeout, Grace: grace, Stdout: &out, NoCgroup: noCgroup, WatchPeriod: 20 * time.Millisecond,
		})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: returned after %v, tree %+v", rep.Tree.Mechanism, took, rep.Tree)
		for _, marker := range []string{loop, away} {
			pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, marker)))
			if err != nil {
				t.Fatalf("%s: the shell did not start its child before the timeout: %v", rep.Tree.Mechanism, err)
			}
			if !gone(pid) {
				t.Errorf("%s: the grandchild %d (%s) still runs after the timeout", rep.Tree.Mechanism, pid, filepath.Base(marker))
			}
		}
		c := rep.Child
		if !c.TimedOut || c.Signal == nil || *c.Signal != "SIGTERM" || c.ExitCode != nil || rep.ExitCode() == 0 {
			t.Errorf("%s: child %+v (exit %d): want timed out by SIGTERM, no exit code", rep.Tree.Mechanism, c, rep.ExitCode())
		}
		if rep.Tree.Ended < 4 || rep.Tree.Left != 0 {
			t.Errorf("%s: tree %+v: want the shell, its loop, sleep and the setsid sleep ended, nothing left", rep.Tree.Mechanism, rep.Tree)
		}
		// SIGKILL comes only once the grace period is over: a return before
		// it means the SIGTERM ended everything.
		if took >= timeout+grace {
			t.Errorf("%s: Run returned %v after its start, past the %v timeout and the %v grace: the SIGTERM did not end the tree", rep.Tree.Mechanism, took, timeout, grace)
		}
		if noCgroup && rep.Tree.Mechanism != MechanismProcessGroup {
			t.Errorf("NoCgroup: mechanism %s", rep.Tree.Mechanism)
		}
		if !rep.Tree.EndedCommand {
			t.Errorf("%s: the command, ended at its timeout, is not said to be among the ended", rep.Tree.Mechanism)
		}
		// Without a cgroup the work's account is the command's rusage and
		// the orphans corepin reaped: the busy loop whose shell was ended
		// is one of them, and its CPU time is the work's, not others'.
		if cov := rep.Coverage; noCgroup && (rep.Tree.ReapedCPUS <= 0 || cov == nil || cov.TreeCPUS < rep.Child.UserS+rep.Child.SysS+rep.Tree.ReapedCPUS) {
			t.Errorf("%s: reaped orphans' CPU %.3f s, coverage %+v: want the busy loop's time in the tree's", rep.Tree.Mechanism, rep.Tree.ReapedCPUS, cov)
		}
	}
	if after := cgroupListing(t); !slices.Equal(before, after) {
		t.Errorf("cgroups before the run %v, after %v", before, after)
	}
}

// A cancelled context (Ctrl-C in corepin run) and a failing command leave
// no cgroup behind either.
func TestRunLeavesNoCgroup(t *testing.T) {
	cpu := needsTwoCPUs(t)
	before := cgroupListing(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"success", []string{"true"}},
		{"failure", []string{"false"}},
		{"not found", []string{"/nonexistent/corepin-test"}},
		{"interrupted", []string{"sleep", "60"}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		if c.name == "interrupted" {
			time.AfterFunc(100*time.Millisecond, cancel)
		}
		rep, err := Run(ctx, Config{Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, Args: c.args, Grace: time.Second})
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.name == "interrupted" && (rep.Child.Signal == nil || *rep.Child.Signal != "SIGTERM") {
			t.Errorf("interrupted: child %+v, want ended by SIGTERM", rep.Child)
		}
		if after := cgroupListing(t); !slices.Equal(before, after) {
			t.Errorf("%s: cgroups before the run %v, after %v", c.name, before, after)
		}
	}
}

// Work that lived between two of the watcher's samples is covered
// exactly by the cgroup's account, and not at all by the samples, which
// say so: the sampled coverage leaves out at least the unseen child's CPU
// time, and without a per-CPU account it is the run's coverage. Without a
// cgroup the tree's time is the command's rusage, which holds the child
// it waited for.
func TestRunCoverageOfShortWork(t *testing.T) {
	cpu := needsTwoCPUs(t)
	self, _ := os.Executable()
	for _, noCgroup := range []bool{false, true} {
		rep, err := Run(context.Background(), Config{
			Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, Args: []string{self},
			Env: append(os.Environ(), "COREPIN_LAUNCH_HELPER=unseen"), WatchPeriod: time.Hour, NoCgroup: noCgroup,
		})
		if err != nil || rep.ExitCode() != 0 {
			t.Fatalf("%v, exit %d", err, rep.ExitCode())
		}
		c := rep.Coverage
		if c == nil || c.Coverage == nil || c.SampledCoverage == nil {
			t.Fatalf("no coverage: %+v", c)
		}
		t.Logf("%s: coverage %.2f (%s), sampled %.2f: %.3f s seen of %.3f s (%s)", rep.Tree.Mechanism, *c.Coverage, c.ResidencySource, *c.SampledCoverage, c.SeenCPUS, c.TreeCPUS, c.TreeSource)
		// /proc counts in clock ticks, each seen thread's time may round
		// up by one.
		slack := float64(len(rep.Watch.Threads)) / procfs.UserHZ
		wantSource := map[string]string{MechanismCgroupV1: "cgroup", MechanismCgroupV2: "cgroup", MechanismProcessGroup: "rusage"}[rep.Tree.Mechanism]
		switch {
		case c.TreeSource != wantSource || c.TreeCPUS < unseenWork.Seconds():
			t.Errorf("%s: the tree's %.3f s from %s, want at least the child's %v from %s (left the cgroup: %d, %.3f s)", rep.Tree.Mechanism, c.TreeCPUS, c.TreeSource, unseenWork, wantSource, rep.Tree.LeftCgroup, rep.Tree.LeftCgroupCPUS)
		case c.SeenCPUS > c.TreeCPUS-unseenWork.Seconds()+slack:
			t.Errorf("%s: the samples saw %.3f s of %.3f s, want the child's %v unseen", rep.Tree.Mechanism, c.SeenCPUS, c.TreeCPUS, unseenWork)
		case len(rep.Tree.PerCPUSeconds) > 0 && (*c.Coverage != 1 || c.ResidencySource != "cpuacct" || *c.Residency < 0.99):
			t.Errorf("with the exact account: %+v, residency %v", c, fmtPtr(c.Residency))
		case len(rep.Tree.PerCPUSeconds) == 0 && (c.ResidencySource != "sampled" || *c.Coverage != *c.SampledCoverage):
			t.Errorf("sampled: coverage %.2f (%s), want the samples' own %.2f", *c.Coverage, c.ResidencySource, *c.SampledCoverage)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(data)
}

// A program that moves itself out of the run's cgroups is still the run's:
// it is found outside at the watcher's ticks, its CPU time counted from
// /proc, and the report says so instead of an exact account of nothing.
func TestRunFollowsAProcessThatLeftItsCgroup(t *testing.T) {
	cpu := needsTwoCPUs(t)
	self, _ := os.Executable()
	cmd := Config{Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, Args: []string{self},
		Env: append(os.Environ(), "COREPIN_LAUNCH_HELPER=escaper"), WatchPeriod: 20 * time.Millisecond}
	rep, err := Run(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Tree.Mechanism, "cgroup") {
		t.Skipf("no run cgroup here (%s): nothing to leave", rep.Tree.NoCgroup)
	}
	tr, c := rep.Tree, rep.Coverage
	t.Logf("exit %d; left %d, %.3f s outside, at most %.3f s (%.3f s on target); tree %.3f s from %s; residency %s coverage %v",
		rep.ExitCode(), tr.LeftCgroup, tr.LeftCgroupCPUS, tr.LeftCgroupCPUMaxS, tr.LeftCgroupOnTargetS, c.TreeCPUS, c.TreeSource, c.ResidencySource, fmtPtr(c.Coverage))
	if rep.ExitCode() != 0 {
		t.Fatalf("the helper exited %d", rep.ExitCode())
	}
	if tr.LeftCgroup != 1 || c.TreeSource != "cgroup+proc" {
		t.Fatalf("tree %+v, coverage %+v: want the process that left found and counted from /proc", tr, c)
	}
	// It moved before its 0.3 s of spinning, so that time lies between
	// what was seen of it outside and what it used since it was last seen
	// inside (less two /proc ticks of 10 ms), however late the watcher's looks.
	if tr.LeftCgroupCPUS <= 0 || tr.LeftCgroupCPUS > tr.LeftCgroupCPUMaxS || tr.LeftCgroupCPUMaxS < 0.28 {
		t.Errorf("%.3f s seen outside, at most %.3f s: want the 0.3 s it spun outside within them", tr.LeftCgroupCPUS, tr.LeftCgroupCPUMaxS)
	}
	// A watcher on time first saw it outside early in the spinning.
	// (Beside other packages' tests, once 0.23 s of its CPU time went by
	// before a tick: then the lower bound is not judged further.)
	if rep.Watch != nil && rep.Watch.KeepUp.MaxLateMs <= 100 && (tr.LeftCgroupCPUS <= 0.1 || c.Coverage == nil || *c.Coverage > 0.7) {
		t.Errorf("tree %+v, coverage %+v, watcher %+v: want most of its 0.3 s seen outside", tr, c, rep.Watch.KeepUp)
	}
}

// A process that ran inside the run's cgroup for a while before it left
// is counted, at most, from the last look that found it inside: the
// upper bound leaves out most of the 0.2 s it used inside, and still
// holds the 0.3 s it used outside.
func TestRunBoundsTheTimeOfAProcessThatLeftLate(t *testing.T) {
	cpu := needsTwoCPUs(t)
	self, _ := os.Executable()
	rep, err := Run(context.Background(), Config{Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, Args: []string{self},
		Env: append(os.Environ(), "COREPIN_LAUNCH_HELPER=escaper", "COREPIN_ESCAPE_AFTER=200ms"), WatchPeriod: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Tree.Mechanism, "cgroup") {
		t.Skipf("no run cgroup here (%s): nothing to leave", rep.Tree.NoCgroup)
	}
	tr, late := rep.Tree, math.Inf(1)
	if rep.Watch != nil {
		late = rep.Watch.KeepUp.MaxLateMs
	}
	t.Logf("exit %d; left %d, %.3f s outside, at most %.3f s; cgroup %s; watcher late up to %.0f ms",
		rep.ExitCode(), tr.LeftCgroup, tr.LeftCgroupCPUS, tr.LeftCgroupCPUMaxS, fmtPtr(tr.CPUSeconds), late)
	if rep.ExitCode() != 0 || tr.LeftCgroup != 1 {
		t.Fatalf("exit %d, %d left: want the helper to leave once and exit 0", rep.ExitCode(), tr.LeftCgroup)
	}
	if tr.LeftCgroupCPUS <= 0 || tr.LeftCgroupCPUS > tr.LeftCgroupCPUMaxS || tr.LeftCgroupCPUMaxS < 0.28 {
		t.Errorf("%.3f s seen outside, at most %.3f s: want the 0.3 s it spun outside within them", tr.LeftCgroupCPUS, tr.LeftCgroupCPUMaxS)
	}
	// Ticks 20 ms apart saw it inside until close to its move: the upper
	// bound counts little of the 0.2 s before. (Late ticks are not judged.)
	if late <= 100 && tr.LeftCgroupCPUMaxS > 0.42 {
		t.Errorf("at most %.3f s outside: want the last look inside, near the move after 0.2 s, to start it", tr.LeftCgroupCPUMaxS)
	}
}

// treeSeconds is the tree's CPU time as the per-CPU account adds it up.
func treeSeconds(rep *Report) float64 {
	sum := 0.0
	for _, s := range rep.Tree.PerCPUSeconds {
		sum += s
	}
	return sum
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'f', 2, 64)
}

// An observed run keeps what the program chose for itself: a child that
// moves itself to another CPU with taskset runs there, and the report
// says where the tree's time went. In the default exact mode the run's
// cpuset holds only the target, and the same taskset is refused.
func TestObserveKeepsTheProgramsOwnAffinity(t *testing.T) {
	target := needsTwoCPUs(t)
	mask, _ := sched.GetAffinity(0)
	other := mask.Difference(cpuset.Of(target)).First()
	loop := []string{"taskset", "-c", strconv.Itoa(other), "sh", "-c", "i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done"}
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("no taskset")
	}
	// Where no run cgroup can be made, the test skips before the loop,
	// which takes half a minute under TCG. Its length differs from machine
	// to machine (50 ms here), so where it ran is judged as a share of the
	// tree's CPU time.
	probe, err := Run(context.Background(), Config{Request: session.Request{CPU: target, Ladder: session.AffinityOnly()}, Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(probe.Tree.Mechanism, "cgroup") {
		t.Skipf("no run cgroup here (%s)", probe.Tree.NoCgroup)
	}
	for _, observe := range []bool{true, false} {
		rep, err := Run(context.Background(), Config{Request: session.Request{CPU: target, Ladder: session.AffinityOnly()}, Args: loop,
			Observe: observe, WatchPeriod: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(rep.Tree.Mechanism, "cgroup") {
			t.Skipf("no run cgroup here (%s)", rep.Tree.NoCgroup)
		}
		t.Logf("observe %v: exit %d, %s", observe, rep.ExitCode(), account.ReportLine(&rep.Scheduling, "--observe"))
		switch {
		case observe && (rep.ExitCode() != 0 || treeSeconds(rep) == 0 || rep.Tree.PerCPUSeconds[other] < 0.8*treeSeconds(rep) || rep.Coverage.Residency == nil || *rep.Coverage.Residency > 0.5):
			t.Errorf("observed: exit %d, per CPU %v, residency %s: want the loop on CPU %d", rep.ExitCode(), rep.Tree.PerCPUSeconds, fmtPtr(rep.Coverage.Residency), other)
		case observe && !strings.Contains(account.ReportLine(&rep.Scheduling, "--observe"), fmt.Sprintf("CPU %d ", other)):
			t.Errorf("the summary does not say where the time went: %s", account.ReportLine(&rep.Scheduling, "--observe"))
		case !observe && rep.ExitCode() == 0:
			t.Errorf("exact mode: taskset to CPU %d outside the run's cpuset exited 0", other)
		}
	}
}

// A run whose cgroup another process ends and removes while it runs, as
// a corepin's sweep does with a corepin it takes for dead, says so in its
// report and its summary: its end came from outside.
func TestRunSweptFromOutsideSaysSo(t *testing.T) {
	cpu := needsTwoCPUs(t)
	if os.Geteuid() != 0 {
		t.Skip("a run's cgroup needs root")
	}
	before := cgroupListing(t)
	marker := filepath.Join(t.TempDir(), "ready")
	done := make(chan *Report, 1)
	go func() {
		rep, err := Run(context.Background(), Config{Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()},
			Args: []string{"sh", "-c", `echo $$ > "$0"; exec sleep 60`, marker}, Grace: time.Second})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	waitMarker(marker)
	var ours []string
	for _, d := range cgroupListing(t) {
		if !slices.Contains(before, d) {
			ours = append(ours, d)
		}
	}
	if len(ours) == 0 {
		if rep := <-done; rep != nil {
			t.Skipf("the run had no cgroup: %s", rep.Tree.NoCgroup)
		}
		return
	}
	sweep := cgroupfs.Found(2, filepath.Base(ours[0]), nil)
	for i, d := range ours {
		if _, err := os.Stat(filepath.Join(d, "tasks")); err == nil {
			sweep.Version = 1
		}
		sweep.Dirs[strconv.Itoa(i)] = d
	}
	if sweep.Version == 2 {
		sweep.Dirs = map[string]string{"": ours[0]}
	}
	sweep.NoteSwept("a stand-in sweep ended it")
	if n, err := sweep.End(); n == 0 || err != nil {
		t.Fatalf("the stand-in sweep ended %d processes: %v", n, err)
	}
	rep := <-done
	if rep == nil {
		return
	}
	if rep.Tree.Swept == "" || !strings.Contains(account.ReportLine(&rep.Scheduling, "--observe"), "was ended while the run went on, by another process") {
		t.Errorf("a run whose cgroup was swept says nothing of it: tree %+v\nsummary %s", rep.Tree, account.ReportLine(&rep.Scheduling, "--observe"))
	}
}
