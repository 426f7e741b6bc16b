package oncpu

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/sched"
)

const helperEnv = "COREPIN_ONCPU_HELPER"

// The test binary doubles as the busy child: with COREPIN_ONCPU_HELPER=busy
// it says "ready", waits for a line on stdin, spins its main thread for
// COREPIN_ONCPU_SPIN of its own CPU time, says "done" and exits. With
// COREPIN_ONCPU_HELPER=start (run as nobody) it tries Start and prints the
// error.
func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "busy":
		busyChild()
	case "start":
		_, err := Start(cpuset.Of(0))
		fmt.Printf("eperm=%v unsupported=%v err=%v\n", errors.Is(err, unix.EPERM), errors.Is(err, errors.ErrUnsupported), err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func busyChild() {
	runtime.LockOSThread()
	spin, err := time.ParseDuration(os.Getenv("COREPIN_ONCPU_SPIN"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		os.Exit(3)
	}
	testcpu.Spin(spin)
	fmt.Println("done")
	os.Exit(0)
}

// needTracer skips a test where the tracer cannot run, naming why.
func needTracer(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to load BPF programs")
	}
	if _, err := os.Stat(btfPath); err != nil {
		t.Skipf("needs kernel BTF: %v", err)
	}
	if _, err := Supported(); errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("the tracer is unsupported here: %v", err)
	} else if err != nil {
		t.Fatalf("Supported: %v", err)
	}
}

// child is a busy helper process, started pinned to one CPU.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
}

// startBusy starts the helper with its whole process pinned to cpu: it is
// forked from a thread locked to that CPU, and a child inherits the mask
// of the thread that forked it.
func startBusy(t *testing.T, cpu int, spin time.Duration) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), helperEnv+"=busy", "COREPIN_ONCPU_SPIN="+spin.String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		old, err := sched.GetAffinity(0)
		if err == nil {
			err = sched.SetAffinity(0, cpuset.Of(cpu))
		}
		if err != nil {
			errc <- err
			return // the thread stays locked and ends with the goroutine
		}
		err = cmd.Start()
		if rerr := sched.SetAffinity(0, old); rerr != nil {
			errc <- errors.Join(err, rerr)
			return // a thread whose mask could not be put back is never unlocked
		}
		runtime.UnlockOSThread()
		errc <- err
	}()
	if err := <-errc; err != nil {
		t.Fatalf("starting the busy helper on CPU %d: %v", cpu, err)
	}
	c := &child{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
	c.expect(t, "ready")
	return c
}

func (c *child) expect(t *testing.T, want string) {
	t.Helper()
	if !c.lines.Scan() {
		t.Fatalf("the busy helper ended before saying %q: %v", want, c.lines.Err())
	}
	if got := c.lines.Text(); got != want {
		t.Fatalf("the busy helper said %q, want %q", got, want)
	}
}

// run lets the helper spin and waits until it has exited.
func (c *child) run(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(c.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	c.expect(t, "done")
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("the busy helper: %v", err)
	}
}

// cpuacctGroup makes a cgroup v1 cpuacct folder for the test, removed at
// its end, or skips where there is no cpuacct hierarchy.
func cpuacctGroup(t *testing.T) string {
	t.Helper()
	root := "/sys/fs/cgroup/cpuacct"
	if _, err := os.Stat(filepath.Join(root, "cpuacct.usage_percpu")); err != nil {
		t.Skipf("needs a cgroup v1 cpuacct hierarchy at %s: %v", root, err)
	}
	dir := filepath.Join(root, fmt.Sprintf("oncpu-test-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The helper has been reaped, so the group is empty; rmdir is
		// how a cgroup is removed.
		if err := unix.Rmdir(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
		}
	})
	return dir
}

// usagePerCPU reads a cpuacct.usage_percpu file: one figure in ns per
// possible CPU, separated by spaces.
func usagePerCPU(t *testing.T, dir string) []time.Duration {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage_percpu"))
	if err != nil {
		t.Fatal(err)
	}
	usage, err := parseUsagePerCPU(string(data))
	if err != nil {
		t.Fatal(err)
	}
	return usage
}

func parseUsagePerCPU(text string) ([]time.Duration, error) {
	var usage []time.Duration
	for _, f := range strings.Fields(text) {
		ns, err := strconv.ParseUint(f, 10, 63)
		if err != nil {
			return nil, fmt.Errorf("cpuacct.usage_percpu %q: %w", text, err)
		}
		usage = append(usage, time.Duration(ns))
	}
	return usage, nil
}

func onCPU(a Account, pid, cpu int) time.Duration {
	var d time.Duration
	for _, task := range a.Tasks {
		if task.PID == pid && task.CPU == cpu {
			d += task.OnCPU
		}
	}
	return d
}

// TestAgreesWithCpuacct compares the tracer's time for a busy process on
// the watched CPU with the kernel's own account of it, the cpuacct
// group's usage on that CPU over the same span.
func TestAgreesWithCpuacct(t *testing.T) {
	needTracer(t)
	cpu := testcpu.Target(t)
	group := cpuacctGroup(t)

	c := startBusy(t, cpu, 500*time.Millisecond)
	pid := c.cmd.Process.Pid
	if err := os.WriteFile(filepath.Join(group, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		t.Fatalf("moving the helper into %s: %v", group, err)
	}
	before := usagePerCPU(t, group)
	tr, err := Start(cpuset.Of(cpu))
	if err != nil {
		t.Fatal(err)
	}
	c.run(t)
	after := usagePerCPU(t, group)
	a, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if cpu >= len(after) || cpu >= len(before) {
		t.Fatalf("cpuacct.usage_percpu has %d CPUs, want CPU %d", len(after), cpu)
	}
	kernel := after[cpu] - before[cpu]
	traced := onCPU(a, pid, cpu)
	t.Logf("CPU %d: cpuacct %v, tracer %v (%d tasks, busy %v, idle %v, lost %+v)",
		cpu, kernel, traced, len(a.Tasks), a.Busy[cpu], a.Idle[cpu], a.Lost)
	if kernel < 400*time.Millisecond {
		t.Fatalf("cpuacct says the helper used %v on CPU %d, want about 500ms", kernel, cpu)
	}
	if diff := (traced - kernel).Abs(); diff > kernel/50 {
		t.Errorf("the tracer's %v differs from cpuacct's %v by %v, more than 2%%", traced, kernel, diff)
	}
	if a.Lost.Any() {
		t.Errorf("lost %+v with a handful of tasks", a.Lost)
	}
	if total := a.Busy[cpu] + a.Idle[cpu]; total < traced {
		t.Errorf("busy %v + idle %v is less than the helper's %v", a.Busy[cpu], a.Idle[cpu], traced)
	}
	// Top orders by time on the CPU: the helper is among them, behind
	// only processes that had more of it (go test's other packages may
	// have); which is busiest is the machine's, not the tracer's.
	top := a.Top(len(a.Processes()), nil)
	at := slices.IndexFunc(top, func(p Process) bool { return p.PID == pid })
	if at < 0 || top[at].OnCPU != traced {
		t.Errorf("Top = %+v: want the helper (PID %d) with its %v", top, pid, traced)
	}
	for i := 1; i < len(top); i++ {
		if top[i].OnCPU > top[i-1].OnCPU {
			t.Errorf("Top is out of order at %d: %+v", i, top)
		}
	}
}

// TestOtherCPUNotAccounted runs the busy helper on a CPU the tracer does
// not watch: none of its time may appear, and no task may be accounted on
// a CPU outside the set.
func TestOtherCPUNotAccounted(t *testing.T) {
	needTracer(t)
	watched := testcpu.Target(t)
	other := testcpu.Others(t, watched).First()

	c := startBusy(t, other, 200*time.Millisecond)
	pid := c.cmd.Process.Pid
	tr, err := Start(cpuset.Of(watched))
	if err != nil {
		t.Fatal(err)
	}
	c.run(t)
	a, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range a.Tasks {
		if task.PID == pid {
			t.Errorf("the helper pinned to CPU %d was accounted on CPU %d: %+v", other, watched, task)
		}
		if task.CPU != watched {
			t.Errorf("a task on CPU %d, outside the watched %d: %+v", task.CPU, watched, task)
		}
	}
	if _, ok := a.Busy[other]; ok {
		t.Errorf("busy time reported for CPU %d, which is not watched", other)
	}
	if !a.CPUs.Equal(cpuset.Of(watched)) {
		t.Errorf("CPUs = %s, want %d", a.CPUs, watched)
	}
}

// TestPreemptedWait puts two busy helpers on one watched CPU: each is
// preempted by the other, so each must show waiting time, and between them
// they must have most of the CPU.
func TestPreemptedWait(t *testing.T) {
	needTracer(t)
	cpu := testcpu.Target(t)
	c1 := startBusy(t, cpu, 200*time.Millisecond)
	c2 := startBusy(t, cpu, 200*time.Millisecond)
	tr, err := Start(cpuset.Of(cpu))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c2.run(t)
	}()
	c1.run(t)
	<-done
	a, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	procs := map[int]Process{}
	for _, p := range a.Processes() {
		procs[p.PID] = p
	}
	for _, c := range []*child{c1, c2} {
		p := procs[c.cmd.Process.Pid]
		t.Logf("helper %d: on CPU %v, waited %v, %d threads, comm %q", p.PID, p.OnCPU, p.Waited, p.Threads, p.Comm)
		if p.OnCPU < 150*time.Millisecond {
			t.Errorf("helper %d ran %v on CPU %d, want at least its 200ms spin less slack", p.PID, p.OnCPU, cpu)
		}
		if p.Waited == 0 {
			t.Errorf("helper %d shared CPU %d with another busy helper but never waited", p.PID, cpu)
		}
		if want := filepath.Base(c.cmd.Path); !strings.HasPrefix(want, p.Comm) || p.Comm == "" {
			t.Errorf("helper %d is named %q, want a prefix of %q", p.PID, p.Comm, want)
		}
	}
}

// TestBusyIsTheTasks checks each watched CPU's figures against each
// other: its busy time is exactly its tasks' time with what was lost, and
// busy and idle together are no more than the span from before Start to
// after Stop. A helper runs there meanwhile, so that the CPUs switch.
func TestBusyIsTheTasks(t *testing.T) {
	needTracer(t)
	cpus := testcpu.Usable(t)
	c := startBusy(t, cpus.First(), 100*time.Millisecond)
	t0 := monotonic()
	tr, err := Start(cpus)
	if err != nil {
		t.Fatal(err)
	}
	c.run(t)
	a, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	span := time.Duration(monotonic() - t0)
	for _, cpu := range cpus.CPUs() {
		if slices.Contains(a.NoSwitch, cpu) {
			t.Logf("CPU %d did not switch", cpu)
			continue
		}
		var tasks time.Duration
		for _, task := range a.Tasks {
			if task.CPU == cpu {
				tasks += task.OnCPU
			}
		}
		t.Logf("CPU %d: busy %v, idle %v, tasks %v, span %v", cpu, a.Busy[cpu], a.Idle[cpu], tasks, span)
		if tasks+a.Lost.Time != a.Busy[cpu] {
			t.Errorf("CPU %d: busy %v, but its tasks have %v and %v was lost", cpu, a.Busy[cpu], tasks, a.Lost.Time)
		}
		if a.Busy[cpu]+a.Idle[cpu] > span {
			t.Errorf("CPU %d: busy %v + idle %v is more than the span %v", cpu, a.Busy[cpu], a.Idle[cpu], span)
		}
	}
}

// TestOverflowIsCounted watches every CPU with room for only two threads
// while a helper runs: the slices that found no room are counted, and
// their time is still in the CPUs' busy time.
func TestOverflowIsCounted(t *testing.T) {
	needTracer(t)
	cpus := testcpu.Usable(t)
	c := startBusy(t, cpus.First(), 50*time.Millisecond)
	sys, err := startWith(cpus, 2)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Tracer{cpus: cpus, sys: sys}
	c.run(t)
	a, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lost %+v, %d tasks", a.Lost, len(a.Tasks))
	if !a.Lost.Any() || a.Lost.Slices == 0 {
		t.Fatalf("no slice lost with room for two threads: %+v", a.Lost)
	}
	var busy, tasks time.Duration
	for _, cpu := range cpus.CPUs() {
		busy += a.Busy[cpu]
	}
	for _, task := range a.Tasks {
		tasks += task.OnCPU
	}
	if tasks+a.Lost.Time != busy {
		t.Errorf("busy %v, but the tasks have %v and %v was lost", busy, tasks, a.Lost.Time)
	}
}

func TestStopTwice(t *testing.T) {
	needTracer(t)
	tr, err := Start(cpuset.Of(testcpu.Usable(t).First()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Stop(); err == nil {
		t.Error("a second Stop succeeded")
	}
}

func TestStartBadCPUs(t *testing.T) {
	if _, err := Start(cpuset.Set{}); err == nil {
		t.Error("Start with no CPU succeeded")
	}
	if _, err := Start(cpuset.Of(cpuset.MaxCPU)); err == nil {
		t.Errorf("Start on CPU %d succeeded", cpuset.MaxCPU)
	}
}

// TestNobodyGetsEPERM runs Start as nobody: the error must keep EPERM.
func TestNobodyGetsEPERM(t *testing.T) {
	needTracer(t)
	cmd := nobody.Command(t, nobody.Executable(t))
	cmd.Env = append(os.Environ(), helperEnv+"=start")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "eperm=true") {
		t.Errorf("Start as nobody: %s", out)
	}
}

func TestSupportedEvidence(t *testing.T) {
	needTracer(t)
	evidence, err := Supported()
	if err != nil || !strings.Contains(evidence, btfPath) {
		t.Errorf("Supported() = %q, %v", evidence, err)
	}
}

func FuzzParseUsagePerCPU(f *testing.F) {
	f.Add("123 456 \n")
	f.Add("")
	f.Add("18446744073709551615")
	f.Fuzz(func(t *testing.T, text string) {
		usage, err := parseUsagePerCPU(text)
		if err != nil {
			return
		}
		if len(usage) != len(strings.Fields(text)) {
			t.Errorf("%q: %d figures from %d fields", text, len(usage), len(strings.Fields(text)))
		}
		for _, u := range usage {
			if u < 0 {
				t.Errorf("%q: negative usage %v", text, u)
			}
		}
	})
}

func FuzzComm(f *testing.F) {
	f.Add([]byte("bash\x00\x00"))
	f.Add([]byte("0123456789abcdef"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var raw [16]int8
		for i := range min(len(b), 16) {
			raw[i] = int8(b[i])
		}
		s := comm(raw)
		if len(s) > 16 || strings.IndexByte(s, 0) >= 0 {
			t.Errorf("comm(%q) = %q", b, s)
		}
	})
}

// TestSlicesAddUpToTheAccount puts two busy helpers on the watched CPU
// between two snapshots: the slices between them lie in order inside the
// window without overlapping, and each thread's slices add up to its time
// in the account between the same snapshots. A snapshot reads its maps
// one after the other while the CPU goes on, so a thread that ran while
// one was read may differ by what it ran then: at most that read's span,
// measured around each snapshot (a starved test process makes it long,
// not wrong). The helpers ended before the second snapshot, so only the
// first one's span bounds theirs.
func TestSlicesAddUpToTheAccount(t *testing.T) {
	needTracer(t)
	cpu := testcpu.Target(t)
	c1 := startBusy(t, cpu, 100*time.Millisecond)
	c2 := startBusy(t, cpu, 100*time.Millisecond)
	tr, err := Start(cpuset.Of(cpu))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Stop()
	snapshot := func() (Account, time.Duration) {
		t.Helper()
		start := time.Now()
		a, err := tr.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		return a, time.Since(start)
	}
	from, fromSpan := snapshot()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c2.run(t)
	}()
	c1.run(t)
	<-done
	to, toSpan := snapshot()
	sl, lost, err := tr.Slices(from, to)
	if err != nil {
		t.Fatal(err)
	}
	if lost > 0 && len(sl) < SlicesPerCPU {
		t.Errorf("%d slices lost with only %d kept", lost, len(sl))
	}
	sum := map[int]time.Duration{}
	for i, s := range sl {
		if s.CPU != cpu || s.Start < from.at || s.End > to.at || s.End < s.Start {
			t.Errorf("slice %d %+v lies outside CPU %d's window %v-%v", i, s, cpu, from.at, to.at)
		}
		if i > 0 && s.Start < sl[i-1].End {
			t.Errorf("slice %d %+v begins before slice %d %+v ended", i, s, i-1, sl[i-1])
		}
		sum[s.TID] += s.OnCPU
	}
	a := to.Since(from)
	helpers := map[int]bool{c1.cmd.Process.Pid: true, c2.cmd.Process.Pid: true}
	for _, task := range a.Tasks {
		slack := fromSpan + toSpan
		if helpers[task.PID] {
			slack = fromSpan
		}
		if diff := (sum[task.TID] - task.OnCPU).Abs(); lost == 0 && diff > slack {
			t.Errorf("thread %d (%s): slices add up to %v, the account says %v", task.TID, task.Comm, sum[task.TID], task.OnCPU)
		}
	}
	for _, c := range []*child{c1, c2} {
		pid, n := c.cmd.Process.Pid, 0
		for _, s := range sl {
			if s.PID == pid {
				n++
			}
		}
		if n < 2 {
			t.Errorf("helper %d, which shared CPU %d with another, ran in %d slices, want several", pid, cpu, n)
		}
	}
	t.Logf("%d slices, %d lost, %d tasks; the snapshots took %v and %v", len(sl), lost, len(a.Tasks), fromSpan, toSpan)
}

// yielders keeps n threads of this process on cpu, each giving the CPU up
// at once whenever it has it, so that the CPU switches between them all the
// time, until the returned function is called. Each has a P of its own
// (GOMAXPROCS is raised by n meanwhile), or a thread waiting for one would
// not be runnable on the CPU at all.
func yielders(t *testing.T, cpu, n int) (stop func()) {
	t.Helper()
	procs := runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + n)
	var done atomic.Bool
	ready := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			ready <- sched.SetAffinity(0, cpuset.Of(cpu))
			for !done.Load() {
				unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
			}
		}()
	}
	stop = func() {
		done.Store(true)
		wg.Wait()
		runtime.GOMAXPROCS(procs)
	}
	for range n {
		if err := <-ready; err != nil {
			stop()
			t.Fatalf("pinning a yielding thread to CPU %d: %v", cpu, err)
		}
	}
	return stop
}

// TestSnapshotIsOneMoment takes snapshots while the watched CPU switches
// all the time: each snapshot's slices, those it counts as logged and the
// one under way, lie before its moment, so that the slices between two
// snapshots reach the second one's moment. Taken before the maps were
// read, the moment left out every switch made while they were.
func TestSnapshotIsOneMoment(t *testing.T) {
	needTracer(t)
	cpu := testcpu.Target(t)
	tr, err := Start(cpuset.Of(cpu))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Stop()
	stop := yielders(t, cpu, 2)
	defer stop()
	for i := range 20 {
		a, err := tr.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if n := a.seq[cpu]; n > 0 {
			last, ok := loggedSlice(t, tr, n-1)
			if end := time.Duration(last.End); ok && end > a.at {
				t.Errorf("snapshot %d: its last logged slice ended %v after its moment", i, end-a.at)
			}
		}
		if o, ok := a.open[cpu]; ok && (o.Start > a.at || o.End != a.at) {
			t.Errorf("snapshot %d: the slice under way %v-%v is not under way at its moment %v", i, o.Start, o.End, a.at)
		}
	}
}

// loggedSlice reads slice seq of the log of the tracer's only watched CPU;
// ok is false where the CPU has written over it since.
func loggedSlice(t *testing.T, tr *Tracer, seq uint64) (s bpfSlice, ok bool) {
	t.Helper()
	if err := tr.sys.objs.Slices.Lookup(uint32(seq%SlicesPerCPU), &s); err != nil {
		t.Fatal(err)
	}
	var states []bpfCpuState
	if err := tr.sys.objs.Cpus.Lookup(uint32(0), &states); err != nil {
		t.Fatal(err)
	}
	return s, states[tr.sys.watched[0]].LogSeq < seq+SlicesPerCPU
}
