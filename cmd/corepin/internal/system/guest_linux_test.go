package system

// Tests that change the whole machine (IRQ routing, kernel knobs, every
// task's cpuset and CPU mask) for real. They run only as root inside a
// guest of the machine matrix (test/machines sets MACHINE_SHAPE), where
// every task belongs to the test; TestGuests boots one from the host.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
	"golang.org/x/sys/unix"
)

// inGuest skips the test unless it runs as root inside a machine-matrix
// guest, and returns a target CPU: an online CPU other than the first.
func inGuest(t *testing.T) int {
	t.Helper()
	if os.Getenv("MACHINE_SHAPE") == "" {
		t.Skip("changes the whole machine's IRQs and cpusets: runs only inside a test/machines guest (COREPIN_GUESTS=1 go test ./cmd/corepin/internal/system -run TestGuests boots one)")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root inside the guest")
	}
	online, ok := (&reader{root: "/"}).list(cpuDir + "/online")
	if !ok || online.Len() < 2 {
		t.Skip("needs two online CPUs")
	}
	return online.CPUs()[1]
}

// irqTable reads every IRQ's affinity, the default affinity and
// perf_event_max_sample_rate straight from /proc, independently of the
// package's reader.
func irqTable(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	paths, _ := filepath.Glob("/proc/irq/*/smp_affinity_list")
	paths = append(paths, "/proc/irq/default_smp_affinity", "/proc/sys/kernel/perf_event_max_sample_rate")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(data)
	}
	return out
}

func TestGuestIRQsMoveAndComeBack(t *testing.T) {
	cpu := inGuest(t)
	before := irqTable(t)
	m := &Machine{Root: "/", Journal: filepath.Join(t.TempDir(), "j.json")}
	target := cpuset.Of(cpu)
	changes, err := Plan(mustRead(t, "/", target), evidence.TuneRequest{CPUs: target, IRQs: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Session("guest test").Apply(t.Context(), changes)
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]string{}
	for _, r := range res.Refused {
		refused["/"+r.Path] = r.Error
	}
	// What corepin wrote, it read back: an IRQ it moved reads back without
	// the target at the time of the write.
	done := map[string]bool{}
	for _, d := range res.Done {
		if !strings.HasSuffix(d.Path, "smp_affinity_list") {
			continue
		}
		done["/"+d.Path] = true
		if rb, err := cpuset.Parse(strings.TrimSpace(d.ReadBack)); err != nil || rb.Contains(cpu) {
			t.Errorf("%s read back %q after the tune, which includes CPU %d", d.Path, d.ReadBack, cpu)
		}
	}
	moved := 0
	for p := range before {
		if !strings.HasSuffix(p, "smp_affinity_list") {
			continue
		}
		data, _ := os.ReadFile(p)
		aff := cpuset.MustParse(strings.TrimSpace(string(data)))
		switch {
		case refused[p] != "":
			t.Logf("not movable: %s", refused[p])
		case aff.Contains(cpu) && done[p]:
			// The kernel gave it its affinity anew after corepin's
			// read-back (a driver that frees and requests its IRQ again,
			// as the guest's serial console can): not corepin's write.
			t.Logf("%s includes CPU %d again after the tune read it back without it: %s", p, cpu, data)
		case aff.Contains(cpu):
			t.Errorf("%s still includes CPU %d, and the tune neither moved it nor says it could not: %s", p, cpu, data)
		default:
			moved++
		}
	}
	if moved == 0 {
		t.Fatalf("no IRQ moved off CPU %d (refused: %v)", cpu, refused)
	}
	if data, _ := os.ReadFile("/proc/sys/kernel/perf_event_max_sample_rate"); strings.TrimSpace(string(data)) != "1" {
		t.Errorf("perf_event_max_sample_rate %q after the tune", data)
	}
	t.Logf("%d IRQs moved off CPU %d, %d refused by the kernel", moved, cpu, len(refused))
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, irqTable(t))
}

// The test binary as nobody: show works, tune is refused and changes
// nothing.
func TestGuestUnprivileged(t *testing.T) {
	cpu := inGuest(t)
	before := irqTable(t)
	exe := nobody.Executable(t)
	cmd := nobody.Command(t, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "COREPIN_SYSTEM_TEST_NOBODY="+strconv.Itoa(cpu))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody:\n%s", out)
	if !strings.Contains(string(out), "show ok") || !strings.Contains(string(out), "tuning needs write access") {
		t.Errorf("as nobody:\n%s", out)
	}
	sameTree(t, before, irqTable(t))
}

func init() {
	helpers["COREPIN_SYSTEM_TEST_NOBODY"] = func(v string) int {
		cpu, _ := strconv.Atoi(v)
		return asNobody(cpu)
	}
}

// asNobody is the helper side of TestGuestUnprivileged.
func asNobody(cpu int) int {
	target := cpuset.Of(cpu)
	f, err := Read("/", target)
	if err != nil {
		fmt.Println("show failed:", err)
		return 1
	}
	fmt.Println("show ok:", len(f.Checks), "checks")
	_, err = TuneFor(context.Background(), &Machine{Root: "/", Journal: filepath.Join(os.TempDir(), "nobody-journal.json")}, evidence.TuneRequest{CPUs: target, IRQs: true}, "nobody")
	var pe *PermissionError
	if !errors.As(err, &pe) {
		fmt.Println("tune as nobody:", err)
		return 1
	}
	fmt.Println(err)
	return 0
}

// taskState is every thread's CPU mask and cgroups, read from /proc.
func taskState(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tid := range allThreads(fsroot.Host) {
		st, err := readStatus(fsroot.Host, tid)
		if err != nil {
			continue
		}
		cg, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", tid))
		if err != nil {
			continue
		}
		out[fmt.Sprintf("%d@%d %s", tid, st.start, st.name)] = st.cpus + " " + strings.ReplaceAll(string(cg), "\n", ";")
	}
	return out
}

// cgroupTree lists the folders and the cpuset files of a cgroup mount.
func cgroupTree(t *testing.T, mount string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(mount, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			out[p+"/"] = ""
			return nil
		}
		if n := d.Name(); strings.HasPrefix(n, "cpuset.") || n == "cgroup.subtree_control" {
			data, _ := os.ReadFile(p)
			out[p] = string(data)
		}
		return nil
	})
	return out
}

// sameTasks compares the threads that lived through the test. A mask
// that differs only in offline CPUs is logged, not failed: the kernel
// itself adds and drops offline CPUs in masks (on CPU hotplug, and before
// 6.2 on every sched_setaffinity), which no restore can hold.
func sameTasks(t *testing.T, before, after map[string]string) {
	t.Helper()
	online := active()
	n := 0
	for k, v := range before {
		if a, ok := after[k]; ok {
			n++
			if a == v {
				continue
			}
			ma, resta, _ := strings.Cut(a, " ")
			mv, restv, _ := strings.Cut(v, " ")
			x, err1 := cpuset.Parse(ma)
			y, err2 := cpuset.Parse(mv)
			if err1 == nil && err2 == nil && resta == restv && x.Intersect(online).Equal(y.Intersect(online)) {
				t.Logf("thread %s: %s, was %s (differs in offline CPUs only)", k, a, v)
				continue
			}
			t.Errorf("thread %s: %s, was %s", k, a, v)
		}
	}
	if n == 0 {
		t.Error("no thread lived through the test")
	}
}

// busyLoop starts a shell that spins, with every CPU allowed, and returns
// it; the test ends it.
func busyLoop(t *testing.T, cpus string) *exec.Cmd {
	t.Helper()
	args := []string{"sh", "-c", "while :; do :; done"}
	if cpus != "" {
		args = append([]string{"taskset", "-c", cpus}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Ready once the loop has run at all (taskset has become the shell).
	waitFor(t, "the busy loop to start", cmd, func() bool {
		if ns, ok := threadRunNs(fsroot.Host, cmd.Process.Pid); ok && ns > 0 {
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", cmd.Process.Pid))
			return strings.TrimSpace(string(comm)) == "sh"
		}
		return false
	})
	return cmd
}

// waitFor polls cond until it holds. A wait that cannot end, because cmd
// ended first or because the condition never comes, fails the test
// naming what it waited for, instead of hanging the guest until its
// timeout with nothing said; two minutes is far more than the slowest
// start under TCG takes.
func waitFor(t *testing.T, what string, cmd *exec.Cmd, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if cmd != nil {
			if st, err := procfs.ReadTaskStat(fsroot.Host, cmd.Process.Pid); err != nil || st.Dead() {
				t.Fatalf("waiting for %s: pid %d (%s) ended first", what, cmd.Process.Pid, strings.Join(cmd.Args, " "))
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not within 2 minutes", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func allowedList(t *testing.T, pid int) cpuset.Set {
	t.Helper()
	st, err := readStatus(fsroot.Host, pid)
	if err != nil {
		t.Fatal(err)
	}
	return cpuset.MustParse(st.cpus)
}

// schedWait is a thread's run time and run-queue wait (ns), from
// /proc/PID/schedstat.
func schedWait(pid int) (run, wait uint64) {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	f := strings.Fields(string(data))
	if len(f) >= 2 {
		run, _ = strconv.ParseUint(f[0], 10, 64)
		wait, _ = strconv.ParseUint(f[1], 10, 64)
	}
	return run, wait
}

// waitRatio pins a spinning loop to cpu until it has run 300 ms and
// returns the share of its time it spent waiting for the CPU.
func waitRatio(t *testing.T, cpu int) (float64, map[int]string) {
	t.Helper()
	work := busyLoop(t, strconv.Itoa(cpu))
	seen := map[int]string{}
	waitFor(t, "300 ms of the busy loop's run time", work, func() bool {
		if run, _ := schedWait(work.Process.Pid); run > 300e6 {
			return true
		}
		for tid, name := range runningOn(cpu, work.Process.Pid) {
			seen[tid] = name
		}
		return false
	})
	run, wait := schedWait(work.Process.Pid)
	work.Process.Kill()
	work.Wait()
	t.Logf("runnable on CPU %d beside the work: %v", cpu, seen)
	return float64(wait) / float64(run+wait), seen
}

// keepSelfOff moves every thread of the test process off cpu, as corepin
// moves its own, and returns the undo. Threads the runtime starts later
// copy the mask of the thread that starts them.
func keepSelfOff(t *testing.T, cpu int) func() {
	t.Helper()
	off := active().Difference(cpuset.Of(cpu))
	var set unix.CPUSet
	for _, c := range off.CPUs() {
		set.Set(c)
	}
	was := map[int]unix.CPUSet{}
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, e := range tasks {
		tid, _ := strconv.Atoi(e.Name())
		var old unix.CPUSet
		if unix.SchedGetaffinity(tid, &old) != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil {
			t.Fatalf("keeping the test's thread %d off CPU %d: %v", tid, cpu, err)
		}
		was[tid] = old
	}
	// A thread the Go runtime starts meanwhile is cloned off the target
	// too: it gets the main thread's old mask back, or a command the test
	// starts from it later would inherit the narrow one.
	main := was[os.Getpid()]
	return func() {
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, e := range tasks {
			tid, _ := strconv.Atoi(e.Name())
			old, ok := was[tid]
			if !ok {
				old = main
			}
			unix.SchedSetaffinity(tid, &old)
		}
	}
}

// runningOn names the runnable threads other than skip last seen on cpu
// (state R and field 39 of /proc/TID/stat).
func runningOn(cpu, skip int) map[int]string {
	out := map[int]string{}
	for _, tid := range allThreads(fsroot.Host) {
		if tid == skip {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", tid))
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) > 36 && f[0] == "R" && f[36] == strconv.Itoa(cpu) {
			out[tid] = s[strings.IndexByte(s, '(')+1 : i]
		}
	}
	return out
}

func testShield(t *testing.T, cpu int, mount string) {
	quiet, _ := waitRatio(t, cpu)
	// As many spinning loops as CPUs, started before the shield with every
	// CPU allowed: one of them shares the target. Under TCG the host runs
	// the guest's virtual CPUs in turns when more are busy than it has
	// CPUs, and a virtual CPU back from a pause first serves the interrupts
	// that piled up: the work's wait then measures the host. There, two
	// loops allowed on the target and one other CPU keep two virtual CPUs
	// busy, and still share the target before the shield.
	loops, where := active().Len(), ""
	if host, _ := strconv.Atoi(os.Getenv("COREPIN_HOST_CPUS")); host > 0 && host < loops+1 {
		loops, where = 2, fmt.Sprintf("%d,%d", cpu, active().Difference(cpuset.Of(cpu)).First())
		t.Logf("the host has %d CPUs for this guest's %d: the busy loops may run on CPUs %s", host, active().Len(), where)
	}
	var others []*exec.Cmd
	for range loops {
		others = append(others, busyLoop(t, where))
	}
	unshielded, _ := waitRatio(t, cpu)
	beforeTasks := taskState(t)
	beforeTree := cgroupTree(t, mount)
	m := &Machine{Root: "/", Journal: filepath.Join(t.TempDir(), "j.json")}
	tuned, err := TuneFor(t.Context(), m, evidence.TuneRequest{CPUs: cpuset.Of(cpu), Shield: true}, "guest shield test")
	if err != nil {
		t.Fatal(err)
	}
	undone := false
	defer func() {
		if !undone {
			tuned.Undo()
		}
	}()
	rep := tuned.Shield
	t.Logf("%s: moved %d, narrowed %d, unmovable %d", rep.Hierarchy, rep.Moved, rep.Narrowed, len(rep.Unmovable))
	for _, o := range others {
		if got := allowedList(t, o.Process.Pid); got.Contains(cpu) {
			t.Errorf("a busy loop started before may still run on CPU %d: Cpus_allowed_list %s", cpu, got)
		}
	}
	// The shield leaves corepin's own process where it is, and corepin
	// keeps its threads off the target itself; so does the test here, as
	// it samples /proc beside the work.
	back := keepSelfOff(t, cpu)
	// Work on the target now waits for none of them.
	shielded, seen := waitRatio(t, cpu)
	back()
	for _, o := range others {
		if name, ok := seen[o.Process.Pid]; ok {
			t.Errorf("busy loop %d (%s) was runnable on the shielded CPU %d", o.Process.Pid, name, cpu)
		}
	}
	t.Logf("work on CPU %d waited %.1f%% of its time alone, %.1f%% beside %d busy loops, %.1f%% beside them shielded", cpu, 100*quiet, 100*unshielded, len(others), 100*shielded)
	// Shielded, nothing of the test's was seen runnable beside the work
	// (above), and on KVM its wait is clearly less than it was. Under TCG
	// the figure measures the host: with every movable kernel
	// thread, the unbound workqueues and the IRQs also moved off the
	// target and nothing seen runnable beside the work, it still ranged
	// from 13% to 36% in one guest, and once came to 0.75 of the
	// unshielded wait. It is judged where the guest runs on KVM.
	switch {
	case os.Getenv("MACHINE_ACCEL") != "kvm":
		t.Logf("the wait is not judged: the guest runs under %q, where the host's CPUs take turns among its virtual CPUs", os.Getenv("MACHINE_ACCEL"))
	case shielded > 0.75*unshielded:
		t.Errorf("shielded, the work waited %.1f%% of its time, %.1f%% unshielded", 100*shielded, 100*unshielded)
	}
	undone = true
	if err := tuned.Undo(); err != nil {
		t.Fatal(err)
	}
	if tuned.Shield.OutsideBusyPct == nil {
		t.Error("no figure for the time others took on the target")
	} else {
		t.Logf("threads left on the target used at most %.2f%% of it", *tuned.Shield.OutsideBusyPct)
	}
	sameTasks(t, beforeTasks, taskState(t))
	sameTree(t, beforeTree, cgroupTree(t, mount))
}

func TestGuestShieldCgroupV2(t *testing.T) {
	cpu := inGuest(t)
	mount, v2, err := cpusetMount(fsroot.Host)
	if err != nil || !v2 {
		t.Skipf("no cgroup v2 cpuset here (%v)", err)
	}
	testShield(t, cpu, mount)
}

// exec --tune puts the IRQs back after the command, after its timeout,
// and a SIGKILLed run leaves a journal that every command reports and
// system reset restores from.
func TestGuestExecAndKill(t *testing.T) {
	cpu := inGuest(t)
	bin := corepinBin(t)
	c := strconv.Itoa(cpu)
	before := irqTable(t)
	for _, args := range [][]string{
		{"exec", "--cpu", c, "--tune", "--irqs", "--", "true"},
		{"exec", "--cpu", c, "--irqs", "--timeout", "200ms", "--", "sleep", "30"},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		t.Logf("corepin %s: %v\n%s", strings.Join(args, " "), err, out)
		sameTree(t, before, irqTable(t))
	}
	// SIGKILL once the tune is in place: corepin's guard puts the machine
	// back from the journal.
	cmd := exec.Command(bin, "exec", "--cpu", c, "--irqs", "--", "sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the tune's last write (perf_event_max_sample_rate 1)", cmd, func() bool {
		data, _ := os.ReadFile("/proc/sys/kernel/perf_event_max_sample_rate")
		return strings.TrimSpace(string(data)) == "1"
	})
	// Let the sleep start, so the tune has finished: the sleep is a child.
	var child int
	waitFor(t, "corepin's child sleep", cmd, func() bool {
		out, _ := exec.Command("pgrep", "-P", strconv.Itoa(cmd.Process.Pid), "-x", "sleep").Output()
		child, _ = strconv.Atoi(strings.TrimSpace(string(out)))
		return child != 0
	})
	cmd.Process.Kill()
	cmd.Wait()
	syscall.Kill(child, syscall.SIGKILL)
	// The guard waits for corepin to be reaped, then resets; under TCG a
	// Go program's start alone takes seconds.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat("/" + DefaultJournal); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			out, err := exec.Command(bin, "system", "reset").CombinedOutput()
			t.Fatalf("60 s after SIGKILL the journal is still there: the guard did not put the tune back (a reset by hand: %v\n%s)", err, out)
		}
	}
	sameTree(t, before, irqTable(t))
	if out, _ := exec.Command(bin, "version").CombinedOutput(); strings.Contains(string(out), "still tuned") {
		t.Errorf("corepin version after the guard's reset:\n%s", out)
	}
}

// The corepin binary in a guest: run --tune --irqs and run --shield put
// the machine back after success and after Ctrl-C.
func corepinBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("COREPIN_BIN")
	if bin == "" {
		t.Skip("needs COREPIN_BIN, the corepin binary to run in the guest (TestGuests sets it)")
	}
	return bin
}

func TestGuestRunRestores(t *testing.T) {
	cpu := inGuest(t)
	bin := corepinBin(t)
	mount, _, err := cpusetMount(fsroot.Host)
	if err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		name   string
		flags  []string
		signal os.Signal // sent once the first run finished
	}{
		{"tune irqs", []string{"--tune", "--irqs"}, nil},
		{"tune irqs, Ctrl-C", []string{"--tune", "--irqs"}, os.Interrupt},
		{"tune irqs, SIGTERM", []string{"--irqs"}, syscall.SIGTERM},
		{"shield", []string{"--shield"}, nil},
		{"shield, Ctrl-C", []string{"--shield"}, os.Interrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			irqs, tasks, tree := irqTable(t), taskState(t), cgroupTree(t, mount)
			out := t.TempDir()
			// Under TCG a vCPU's run-queue wait follows the host's load; this
			// test is about the machine's state, not about sharing.
			// Signalled once the first run finished, the run must still
			// have runs to go, however late the signal comes under TCG.
			count := "2"
			if tc.signal != nil {
				count = "6"
			}
			args := append([]string{"run", "--quick", "--only", "fib", "--runs", count, "--warmup", "0", "--allow-sharing", "--cpu", strconv.Itoa(cpu), "--out", out}, tc.flags...)
			cmd := exec.Command(bin, args...)
			stderr, _ := cmd.StderrPipe()
			cmd.Stdout = os.Stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Ready for Ctrl-C once the first run started: corepin's line
			// for it on stderr (not a terminal) comes after the tune.
			sc := bufio.NewScanner(stderr)
			var lines []string
			for sc.Scan() {
				lines = append(lines, sc.Text())
				if tc.signal != nil && strings.Contains(sc.Text(), "[1/") {
					cmd.Process.Signal(tc.signal)
					break
				}
			}
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			err := cmd.Wait()
			t.Logf("corepin %s: %v\n%s", strings.Join(args, " "), err, strings.Join(lines, "\n"))
			want := 0 // a signal ends corepin run with 128+N, after the reset
			if sig, ok := tc.signal.(syscall.Signal); ok {
				want = 128 + int(sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != want {
				if why := onlyWatcherMissed(out); code == 1 && want == 0 && why != "" {
					// TCG runs the guest's CPUs in turns on the host's: a
					// watcher that misses its ticks there is an emulation
					// limit, and this test is about the machine's state.
					t.Logf("exit 1 because the watcher could not keep up under TCG: %s", why)
				} else {
					t.Errorf("exit %d", code)
				}
			}
			sameTree(t, irqs, irqTable(t))
			sameTasks(t, tasks, taskState(t))
			sameTree(t, tree, cgroupTree(t, mount))
			if _, err := os.Stat("/" + DefaultJournal); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("journal left after the run: %v", err)
			}
			runs, _ := filepath.Glob(filepath.Join(out, "*", "run.json"))
			if len(runs) != 1 {
				t.Fatalf("run.json: %v", runs)
			}
			data, _ := os.ReadFile(runs[0])
			if !strings.Contains(string(data), `"tuned"`) || !strings.Contains(string(data), `"restored"`) {
				t.Errorf("run.json does not record the tune and its reset")
			}
		})
	}
}

// system tune --shield keeps the shield after corepin exits; system reset,
// another process, takes it down exactly.
func TestGuestSystemTuneShield(t *testing.T) {
	cpu := inGuest(t)
	bin := corepinBin(t)
	mount, _, err := cpusetMount(fsroot.Host)
	if err != nil {
		t.Skip(err)
	}
	loop := busyLoop(t, "")
	tasks, tree, irqs := taskState(t), cgroupTree(t, mount), irqTable(t)
	reset := func() {
		out, err := exec.Command(bin, "system", "reset").CombinedOutput()
		t.Logf("corepin system reset: %v\n%s", err, out)
		if err != nil {
			t.Error(err)
		}
	}
	// Whatever fails below, no tune or shield outlives the test: the
	// tests after it measure this machine.
	defer func() {
		if reset != nil {
			reset()
		}
	}()
	out, err := exec.Command(bin, "system", "tune", "--cpu", strconv.Itoa(cpu), "--shield", "--irqs").CombinedOutput()
	t.Logf("corepin system tune --shield --irqs: %v\n%s", err, out)
	if err != nil {
		t.Fatal(err)
	}
	// An IRQ the kernel would not move (x86's timer and cascade) is
	// named, with its errno, and kept where it was.
	for _, m := range regexp.MustCompile(`warning: not moved off the target, which still gets it: IRQ (\d+)[^:]*: the kernel refuses to move it \(E[A-Z]+\)`).FindAllStringSubmatch(string(out), -1) {
		p := "/proc/irq/" + m[1] + "/smp_affinity_list"
		if data, _ := os.ReadFile(p); string(data) != irqs[p] {
			t.Errorf("IRQ %s is said to be refused, but its affinity changed from %q to %q", m[1], irqs[p], data)
		}
	}
	if got := allowedList(t, loop.Process.Pid); got.Contains(cpu) {
		t.Errorf("after system tune --shield the busy loop may run on CPU %d: %s", cpu, got)
	}
	reset()
	reset = nil
	sameTasks(t, tasks, taskState(t))
	sameTree(t, tree, cgroupTree(t, mount))
	sameTree(t, irqs, irqTable(t))
}

// system tune --shield from another shell while a corepin run measures on
// the same CPU leaves that corepin and its run where they are: every run,
// those after the shield went up too, completes on its CPU, and the
// shield says it left the run in place. A corepin started afterwards from
// a shell the shield moved says it runs inside the shield, on stderr and
// in its run.json, with the stale tune that made it.
func testShieldBesideARun(t *testing.T, cpu int, mount string) {
	bin := corepinBin(t)
	c := strconv.Itoa(cpu)
	tree := cgroupTree(t, mount)
	others := active().Difference(cpuset.Of(cpu))
	// A shell started before the shield: the shield moves it, and the
	// corepin it starts afterwards is inside.
	second := t.TempDir()
	shell := exec.Command("sh", "-c", `read go; exec "$@"`, "sh", bin, "run", "--quick", "--only", "fib", "--runs", "1", "--warmup", "0",
		"--allow-sharing", "--cpu", strconv.Itoa(others.First()), "--out", second)
	release, _ := shell.StdinPipe()
	var shellErr strings.Builder
	shell.Stderr = &shellErr
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { release.Close(); shell.Wait() }()

	first := t.TempDir()
	args := []string{"run", "--quick", "--only", "fib", "--runs", "12", "--warmup", "0", "--allow-sharing", "--cpu", c, "--out", first}
	run := exec.Command(bin, args...)
	stderr, _ := run.StderrPipe()
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	// Ready once its first run has started: the tree is on the target.
	sc := bufio.NewScanner(stderr)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), "[1/") {
			break
		}
	}
	cgroupBefore, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", run.Process.Pid))
	out, err := exec.Command(bin, "system", "tune", "--cpu", c, "--shield").CombinedOutput()
	up := time.Now()
	t.Logf("corepin system tune --cpu %s --shield, during the run: %v\n%s", c, err, out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		out, err := exec.Command(bin, "system", "reset").CombinedOutput()
		t.Logf("corepin system reset: %v\n%s", err, out)
		if err != nil {
			t.Error(err)
		}
		sameTree(t, tree, cgroupTree(t, mount))
	}()
	if want := fmt.Sprintf("left in place, a corepin that measures now: pid %d `%s", run.Process.Pid, bin); !strings.Contains(string(out), want) ||
		!strings.Contains(string(out), "1 corepin run left in place") {
		t.Errorf("the shield does not say it left the run in place (%q)", want)
	}
	if now, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", run.Process.Pid)); string(now) != string(cgroupBefore) {
		t.Errorf("the shield moved the running corepin: its cgroups were\n%s, now\n%s", cgroupBefore, now)
	}
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = run.Wait()
	t.Logf("corepin %s: %v\n%s", strings.Join(args, " "), err, strings.Join(lines, "\n"))
	if code := run.ProcessState.ExitCode(); code != 0 {
		if why := onlyWatcherMissed(first); code == 1 && why != "" {
			t.Logf("exit 1 because the watcher could not keep up under TCG: %s", why)
		} else {
			t.Errorf("the run beside the shield: exit %d", code)
		}
	}
	after := 0
	doc := readRun(t, first)
	for _, b := range doc.Benchmarks {
		if b.CompletedRuns != b.PlannedRuns {
			t.Errorf("%s: %d of %d runs completed", b.Name, b.CompletedRuns, b.PlannedRuns)
		}
		for _, r := range b.Runs {
			sch := r.Scheduling
			if r.Error != "" || !sch.Accept.OK || !slices.Equal(sch.Readback.CPUs, []int{cpu}) {
				t.Errorf("%s run %d (started %s): error %q, accepted %v (%s), mask reads back %v, want [%d]", b.Name, r.Index, r.Started.Format(time.StampMilli),
					r.Error, sch.Accept.OK, sch.Accept.Why, sch.Readback.CPUs, cpu)
			}
			if r.Started.After(up) {
				after++
			}
		}
	}
	t.Logf("%d runs started after the shield was up", after)
	if after == 0 {
		t.Errorf("every run started before the shield was up at %s: nothing was measured beside it", up.Format(time.StampMilli))
	}

	// A corepin from the shell the shield moved.
	release.Write([]byte("go\n"))
	release.Close()
	err = shell.Wait()
	t.Logf("corepin run from a shell inside the shield: %v\n%s", err, shellErr.String())
	inside := fmt.Sprintf("inside corepin's shield: CPUs %d are shielded by `corepin system tune --cpus %d --shield` (pid ", cpu, cpu)
	if !strings.Contains(shellErr.String(), inside) {
		t.Errorf("corepin started inside the shield does not say %q on stderr", inside)
	}
	var texts []string
	for _, w := range readRun(t, second).Warnings {
		texts = append(texts, w.Text)
	}
	warnings := strings.Join(texts, "\n")
	if !strings.Contains(warnings, inside) || !strings.Contains(warnings, "the machine is still tuned from `corepin system tune --cpus "+c+" --shield`") {
		t.Errorf("run.json of the corepin inside the shield does not say it is inside, nor name the tune that made it:\n%s", warnings)
	}
}

// runDoc is what testShieldBesideARun reads of a run.json.
type runDoc struct {
	Warnings []struct {
		Text string `json:"text"`
	} `json:"warnings"`
	Benchmarks []struct {
		Name          string `json:"name"`
		PlannedRuns   int    `json:"planned_runs"`
		CompletedRuns int    `json:"completed_runs"`
		Runs          []struct {
			Index      int       `json:"index"`
			Error      string    `json:"error"`
			Started    time.Time `json:"started"`
			Scheduling struct {
				Readback struct {
					CPUs []int `json:"cpus"`
				} `json:"readback"`
				Accept struct {
					OK  bool   `json:"ok"`
					Why string `json:"why"`
				} `json:"accept"`
			} `json:"scheduling"`
		} `json:"runs"`
	} `json:"benchmarks"`
}

// readRun reads the one run.json under out.
func readRun(t *testing.T, out string) runDoc {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(out, "*", "run.json"))
	if len(runs) != 1 {
		t.Fatalf("run.json under %s: %v", out, runs)
	}
	data, err := os.ReadFile(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc runDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", runs[0], err)
	}
	return doc
}

func TestGuestShieldBesideARun(t *testing.T) {
	cpu := inGuest(t)
	mount, _, err := cpusetMount(fsroot.Host)
	if err != nil {
		t.Skip(err)
	}
	testShieldBesideARun(t, cpu, mount)
}

// The same on a cgroup v1 cpuset hierarchy mounted for the test, where
// the run's cgroups are made in it and the shield must leave them their
// CPUs. It comes before TestGuestShieldCgroupV1 and unmounts the
// hierarchy at its end, giving cgroup v2 its cpuset controller back.
func TestGuestShieldBesideARunCgroupV1(t *testing.T) {
	cpu := inGuest(t)
	dir := filepath.Join(t.TempDir(), "cpuset")
	os.Mkdir(dir, 0o755)
	if err := syscall.Mount("cpuset", dir, "cgroup", 0, "cpuset"); err != nil {
		t.Skipf("cannot mount a cgroup v1 cpuset hierarchy (a kernel without CONFIG_CPUSETS_V1, as Debian's 6.12): %v", err)
	}
	defer syscall.Unmount(dir, 0)
	testShieldBesideARun(t, cpu, dir)
}

// The shield on a cgroup v1 cpuset hierarchy mounted for the test, with a
// child cpuset that includes the target. It runs last: the mount takes the
// cpuset controller away from cgroup v2 until the hierarchy is gone.
func TestGuestShieldCgroupV1(t *testing.T) {
	cpu := inGuest(t)
	dir := filepath.Join(t.TempDir(), "cpuset")
	os.Mkdir(dir, 0o755)
	if err := syscall.Mount("cpuset", dir, "cgroup", 0, "cpuset"); err != nil {
		t.Skipf("cannot mount a cgroup v1 cpuset hierarchy (a kernel without CONFIG_CPUSETS_V1, as Debian's 6.12): %v", err)
	}
	defer syscall.Unmount(dir, 0)
	if mount, v2, err := cpusetMount(fsroot.Host); err != nil || v2 || mount != dir {
		t.Fatalf("the v1 mount is not found: %s %v %v", mount, v2, err)
	}
	// A child cpuset that includes the target, as a container runtime's.
	child := filepath.Join(dir, "corepin-test-child")
	os.Mkdir(child, 0o755)
	defer os.Remove(child)
	mems, _ := os.ReadFile(filepath.Join(dir, "cpuset.mems"))
	cpus, _ := os.ReadFile(filepath.Join(dir, "cpuset.cpus"))
	os.WriteFile(filepath.Join(child, "cpuset.cpus"), cpus, 0)
	os.WriteFile(filepath.Join(child, "cpuset.mems"), mems, 0)
	testShield(t, cpu, dir)
}

// onlyWatcherMissed says why when every failed check of the run.json in
// out is the watcher's keep-up check, and "" otherwise.
func onlyWatcherMissed(out string) string {
	runs, _ := filepath.Glob(filepath.Join(out, "*", "run.json"))
	if len(runs) != 1 {
		return ""
	}
	data, err := os.ReadFile(runs[0])
	if err != nil {
		return ""
	}
	var doc struct {
		Benchmarks []struct {
			Runs []struct {
				Checks []struct {
					What   string `json:"what"`
					Passed bool   `json:"passed"`
					Detail string `json:"detail"`
				} `json:"checks"`
				Error string `json:"error"`
			} `json:"runs"`
		} `json:"benchmarks"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return ""
	}
	why := ""
	for _, b := range doc.Benchmarks {
		for _, r := range b.Runs {
			if r.Error != "" {
				return ""
			}
			for _, c := range r.Checks {
				switch {
				case c.Passed:
				case c.What == "the watcher kept up":
					why = c.Detail
				default:
					return ""
				}
			}
		}
	}
	return why
}

// TestGuestStackedTunes: six run --tune --irqs on one target, started
// together: the journal's lock puts their tunes one after the other, and
// every tune after the first finds the IRQs moved already. Once all six
// measure (each command wrote its readiness marker), they end in an order
// that is neither the order they tuned in nor its reverse; while any
// runs, the IRQs stay as the tunes left them, every run's system.end has
// no IRQ on the target but those the kernel refused to move, and none
// says its tune was lost; the last to end puts back every IRQ and leaves
// no journal. (Started together rather than seconds apart: the tunes
// stack the same way, and the guest's time is CI's.)
func TestGuestStackedTunes(t *testing.T) {
	cpu := inGuest(t)
	bin := corepinBin(t)
	if shape := os.Getenv("MACHINE_SHAPE"); shape != "hole" {
		// Six corepins starting at once cost half a minute under TCG, and
		// IRQ routing is the same in every shape.
		t.Skipf("runs in the hole guest alone, not in %s", shape)
	}
	before := irqTable(t)
	const n = 6
	type run struct {
		cmd              *exec.Cmd
		out, ready, stop string
		stderr           strings.Builder
		done             chan struct{} // closed once the run has ended
	}
	var runs []*run
	t.Cleanup(func() {
		for _, r := range runs {
			os.WriteFile(r.stop, nil, 0o644)
			<-r.done
		}
	})
	for range n {
		dir := t.TempDir()
		r := &run{out: filepath.Join(dir, "out"), ready: filepath.Join(dir, "ready"), stop: filepath.Join(dir, "stop"), done: make(chan struct{})}
		suite := filepath.Join(dir, "hold.toml")
		script := `echo > "$0"; while [ ! -e "$1" ]; do sleep 0.02; done`
		os.WriteFile(suite, []byte(fmt.Sprintf("[[benchmark]]\nname = \"hold\"\ncmd = \"sh\"\nargs = [%q, %q, %q, %q]\n", "-c", script, r.ready, r.stop)), 0o644)
		r.cmd = exec.Command(bin, "run", suite, "--runs", "1", "--warmup", "0", "--allow-sharing", "--mode", "soft", "--accept", "any",
			"--cpu", strconv.Itoa(cpu), "--tune", "--irqs", "--out", r.out)
		r.cmd.Stderr = &r.stderr
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { r.cmd.Wait(); close(r.done) }()
		runs = append(runs, r)
	}
	for i, r := range runs {
		for ready := false; !ready; {
			select {
			case <-r.done:
				t.Fatalf("run %d ended before it measured:\n%s", i, r.stderr.String())
			case <-time.After(10 * time.Millisecond):
				_, err := os.Stat(r.ready)
				ready = err == nil
			}
		}
	}
	tuned := irqTable(t)
	relied := 0
	for k, i := range []int{0, 2, 1, 5, 3, 4} {
		r := runs[i]
		os.WriteFile(r.stop, nil, 0o644)
		<-r.done
		t.Logf("run %d ended: %v\n%s", i, r.cmd.ProcessState, r.stderr.String())
		if code := r.cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
			t.Errorf("run %d: exit %d", i, code)
		}
		if k < n-1 {
			sameTree(t, tuned, irqTable(t))
		}
		if stackedRunHeld(t, i, r.out, cpu) {
			relied++
		}
	}
	sameTree(t, before, irqTable(t))
	if _, err := os.Stat("/" + DefaultJournal); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("journal left after the last run: %v", err)
	}
	if !maps.Equal(before, tuned) && relied != n-1 {
		t.Errorf("%d runs relied on values another had set, want all but the first to tune (%d)", relied, n-1)
	}
}

// stackedRunHeld checks one run's record: no IRQ on the target at its end
// but those the kernel refused to move, and no tune lost. It says whether
// the run's tune relied on values another tune had set.
func stackedRunHeld(t *testing.T, i int, out string, cpu int) bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, "*", "run.json"))
	if len(files) != 1 {
		t.Fatalf("run %d: run.json %v", i, files)
	}
	data, _ := os.ReadFile(files[0])
	var doc struct {
		Warnings []string `json:"warnings"`
		System   struct {
			End   evidence.Facts `json:"end"`
			Tuned struct {
				Result struct {
					Done    []evidence.Done    `json:"done"`
					Refused []evidence.Refusal `json:"refused"`
					Relied  []evidence.Done    `json:"relied"`
				} `json:"result"`
			} `json:"tuned"`
		} `json:"system"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("run %d: %v", i, err)
	}
	refused := map[string]bool{}
	for _, r := range doc.System.Tuned.Result.Refused {
		refused[r.Path] = true
	}
	for _, q := range doc.System.End.IRQs.OnTarget {
		if !refused[irqDir+"/"+q.Number+"/smp_affinity_list"] {
			t.Errorf("run %d: IRQ %s on target CPU %d at its end (affinity %s)", i, q.Number, cpu, q.Affinity)
		}
	}
	for _, w := range doc.Warnings {
		if strings.Contains(w, "tune was lost") {
			t.Errorf("run %d: %s", i, w)
		}
	}
	return len(doc.System.Tuned.Result.Relied) > 0
}
