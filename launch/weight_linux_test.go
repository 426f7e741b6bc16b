package launch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/busy"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/internal/tree"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// spinInOtherSessions starts n spinning processes pinned to cpu, each in a
// session of its own (setsid), as busy loops a user started from other
// terminals are, and returns once every one of them has run there. They
// are killed, by PID, when the test ends.
func spinInOtherSessions(t *testing.T, cpu, n int) (loopsCPU func() float64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.Command(self, SpinArg)
		cmds[i].Env = append(os.Environ(), "GOMAXPROCS=1")
		cmds[i].SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	p, err := StartPinned(cpu, cmds...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	loopsCPU = func() float64 {
		var ticks uint64
		for _, proc := range p.Processes() {
			if st, err := procfs.ReadTaskStat(fsroot.Host, proc.Pid); err == nil {
				ticks += st.CPUTicks()
			}
		}
		return float64(ticks) / 100
	}
	for _, proc := range p.Processes() {
		if sid, err := unix.Getsid(proc.Pid); err != nil || sid != proc.Pid {
			t.Fatalf("load process %d is in session %d (%v), not its own", proc.Pid, sid, err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if st, err := procfs.ReadTaskStat(fsroot.Host, proc.Pid); err == nil && st.CPUTicks() > 0 && st.Processor == cpu {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("load process %d never ran on CPU %d", proc.Pid, cpu)
			}
		}
	}
	return loopsCPU
}

// cpuCgroupOf finds, in /proc/self/cgroup text, the cgroup of the
// hierarchy that holds the cpu controller (v1) or of the v2 hierarchy.
func cpuCgroupOf(text string, v2 bool) string {
	for _, line := range strings.Split(text, "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if (v2 && f[0] == "0" && f[1] == "") || slices.Contains(strings.Split(f[1], ","), "cpu") {
			return f[2]
		}
	}
	return ""
}

// busyAt runs a third of a second of busy work at nice -20 on cpu (busyThird);
// the work then prints its cgroups (through the launcher the work is
// moved into the weighted cgroup once it runs, so a child it started first
// is not).
func busyAt(t *testing.T, cpu int, launcher, noCgroup bool) (*Report, string) {
	t.Helper()
	n := -20
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, err := Run(context.Background(), Config{
		Request: session.Request{CPU: cpu, Ladder: session.CustomLadder(nil, 0, &n, nil)},
		Args:    []string{self}, Env: append(os.Environ(), "COREPIN_LAUNCH_HELPER=busythird", "GOMAXPROCS=1"),
		Stdout: &out, Stderr: os.Stderr, WatchPeriod: 20 * time.Millisecond, Launcher: launcher, NoCgroup: noCgroup,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != 0 || rep.Readback.Nice != -20 || rep.Sharing == nil || rep.Sharing.CPUPerWall == nil {
		t.Fatalf("exit %d, nice %d read back, refused %q, sharing %+v", rep.ExitCode(), rep.Readback.Nice, rep.Refused, rep.Sharing)
	}
	return rep, out.String()
}

// busyThird spins until its thread has used a third of a second of CPU
// time (a hundred scheduler slices: a share against two loops is plain in
// it), then
// prints its /proc/self/cgroup: work of a fixed CPU time, whatever the
// machine's speed (a fixed count of a shell loop took two minutes in an
// emulated guest).
func busyThird() int {
	runtime.LockOSThread()
	for start := busy.ThreadCPU(); busy.ThreadCPU()-start < time.Second/3; {
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 1
	}
	os.Stdout.Write(data)
	return 0
}

// A nice value set by corepin must act against busy loops of other
// sessions, which autogroup would otherwise give as much of the CPU as
// corepin's whole session: the run goes into a cpu cgroup of nice -20's
// weight, and its report names that.
func TestNiceActsAgainstOtherSessions(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("makes cgroups and sets nice -20: needs root")
	}
	testcpu.Alone(t) // its share is judged at the largest weight, which another such test would halve
	cpu := testcpu.Target(t)
	autogroup, evidence := tree.Autogroup("/")
	loopsCPU := spinInOtherSessions(t, cpu, 2)
	for _, launcher := range []bool{false, true} {
		name := StartFork
		if launcher {
			name = StartLauncher
		}
		t.Run(name, func(t *testing.T) {
			loopsBefore := loopsCPU()
			rep, out := busyAt(t, cpu, launcher, false)
			loops := loopsCPU() - loopsBefore
			// The work's CPU time (its rusage) against the loops' in the
			// same window: what the weights give, whatever else go test
			// runs on the CPU beside them (its own share of wall time is
			// logged beside it).
			own := rep.Child.UserS + rep.Child.SysS
			// The loops' figure also holds what they ran while corepin set
			// the run up and took it down (slow under -race), and the
			// work's share of its wall time what else go test ran on the
			// CPU: either at 0.9 says the loops did not take the CPU.
			share := max(own/(own+loops), own/rep.Child.WallS)
			t.Logf("%s: own CPU %.2f s in %.2f s wall (%.3f), the loops %.2f s: the work's share against them %.3f, cpu_per_wall %.3f, scope %q %s", evidence,
				own, rep.Child.WallS, own/rep.Child.WallS, loops, share, *rep.Sharing.CPUPerWall, rep.Tree.PriorityScope, rep.Tree.PriorityNote)
			if !autogroup {
				if rep.Tree.PriorityScope != tree.ScopeNoAutogroup {
					t.Errorf("without autogroup the scope is %q", rep.Tree.PriorityScope)
				}
			} else {
				if rep.Tree.PriorityScope == tree.ScopeAutogroup {
					t.Skipf("no cpu cgroup for the run here: %s", rep.Tree.PriorityNote)
				}
				// cgroup v2's cpu.weight keeps the weight to 10.24 of the
				// kernel's: 88761 reads back as 88760.
				var w int
				if _, err := fmt.Sscanf(rep.Tree.PriorityScope, "cpu cgroup weight %d", &w); err != nil || w < tree.NiceWeight(-20)-6 || w > tree.NiceWeight(-20) {
					t.Errorf("scope %q, want %q", rep.Tree.PriorityScope, fmt.Sprintf("cpu cgroup weight %d", tree.NiceWeight(-20)))
				}
				// The work itself says it ran in the run's cpu cgroup.
				cg := cpuCgroupOf(out, rep.Tree.Mechanism == MechanismCgroupV2)
				if !strings.HasPrefix(filepath.Base(cg), "corepin-") {
					t.Errorf("the work's cpu cgroup is %q:\n%s", cg, out)
				}
			}
			if share < 0.9 {
				t.Errorf("the nice -20 work got %.3f of CPU %d against two loops of other sessions, want >= 0.9", share, cpu)
			}
			if rep.Tree.Mechanism != MechanismProcessGroup && !rep.Tree.CgroupRemoved {
				t.Errorf("the run's cgroups were not removed: %v", rep.Tree.Errors)
			}
			for _, d := range rep.Tree.Cgroup {
				if _, err := os.Stat(d); err == nil {
					t.Errorf("%s is still there", d)
				}
			}
		})
	}
	// Without a cgroup the report says the nice value acts only within
	// its session (the share is only logged: it is the kernel's to give).
	t.Run("no-cgroup", func(t *testing.T) {
		rep, _ := busyAt(t, cpu, false, true)
		t.Logf("own CPU %.2f s in %.2f s, cpu_per_wall %.3f, scope %q %s", rep.Child.UserS+rep.Child.SysS, rep.Child.WallS,
			*rep.Sharing.CPUPerWall, rep.Tree.PriorityScope, rep.Tree.PriorityNote)
		want := tree.ScopeNoAutogroup
		if autogroup {
			want = tree.ScopeAutogroup
		}
		if rep.Tree.PriorityScope != want || (autogroup && rep.Tree.PriorityNote == "") {
			t.Errorf("scope %q, note %q; want %q and why", rep.Tree.PriorityScope, rep.Tree.PriorityNote, want)
		}
	})
}

// A realtime step is never put into the weighted cpu cgroup, where with
// CONFIG_RT_GROUP_SCHED it could not run: it runs, in corepin's own cpu
// cgroup, and the report says its priority is realtime.
func TestRealtimeStepNotWeighted(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("makes cgroups: needs root")
	}
	if f := sched.Realtime(); !f.Supported {
		t.Skipf("no realtime policy here: %s", f.Evidence)
	}
	cpu := testcpu.Target(t)
	ownData, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	fifo := sched.FIFO
	for _, launcher := range []bool{false, true} {
		var out bytes.Buffer
		rep, err := Run(context.Background(), Config{
			Request: session.Request{CPU: cpu, Ladder: session.CustomLadder(&fifo, 10, nil, nil), AllowRealtime: true},
			Args:    []string{"cat", "/proc/self/cgroup"}, Stdout: &out, Launcher: launcher,
		})
		if err != nil {
			t.Fatal(err)
		}
		if rep.ExitCode() != 0 || rep.Readback.Policy != "fifo" {
			t.Fatalf("launcher %v: exit %d, policy %s read back, refused %q, exec error %q", launcher, rep.ExitCode(), rep.Readback.Policy, rep.Refused, rep.ExecError)
		}
		if rep.Tree.PriorityScope != tree.ScopeRealtime {
			t.Errorf("launcher %v: scope %q", launcher, rep.Tree.PriorityScope)
		}
		v2 := rep.Tree.Mechanism == MechanismCgroupV2
		if v2 {
			continue // one directory; cpu.weight is left as it was
		}
		if got, own := cpuCgroupOf(out.String(), false), cpuCgroupOf(string(ownData), false); got != own {
			t.Errorf("launcher %v: the realtime command ran in cpu cgroup %q, not corepin's %q", launcher, got, own)
		}
		for _, d := range rep.Tree.Cgroup {
			if strings.HasPrefix(d, "/sys/fs/cgroup/cpu/") {
				t.Errorf("launcher %v: the run has a cpu cgroup %s", launcher, d)
			}
		}
	}
}
