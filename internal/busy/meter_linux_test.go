package busy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/sched"
)

// Two readings of this machine's CPUs come from one source, in order, and
// the busy time and the reading thread's own CPU time only grow.
func TestMeterReadsTheLiveMachine(t *testing.T) {
	cpus, err := sched.GetAffinity(0)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := cgroupfs.Find(fsroot.Host)
	m := NewMeter(fsroot.Host, h, cpus)
	a, ok1 := m.Read()
	for start := ThreadCPU(); ThreadCPU()-start < 20e6; { // 20 ms of CPU time
	}
	b, ok2 := m.Read()
	if !ok1 || !ok2 || a.Source != b.Source || (a.Source != Cpuacct && a.Source != ProcStat) {
		t.Fatalf("readings %v %v from %q and %q", ok1, ok2, a.Source, b.Source)
	}
	if b.At <= a.At || b.Self <= a.Self || !b.Wall.After(a.Wall) {
		t.Errorf("the second reading is not later: %v %v, self %v %v", a.At, b.At, a.Self, b.Self)
	}
	var before, after int64
	for _, cpu := range cpus.CPUs() {
		before, after = before+int64(a.Tasks[cpu]), after+int64(b.Tasks[cpu])
	}
	if len(b.Tasks) != cpus.Len() || after < before {
		t.Errorf("busy time %v then %v over %d CPUs of %s", before, after, len(b.Tasks), cpus)
	}
}

// Without the cgroup hierarchies the meter reads /proc/stat.
func TestMeterWithoutCgroups(t *testing.T) {
	r, ok := NewMeter(fsroot.Host, nil, cpuset.Of(0)).Read()
	if !ok || r.Source != ProcStat {
		t.Errorf("read %v from %q, want /proc/stat's", ok, r.Source)
	}
}

// The meter finds the target's own per-CPU kernel threads (migration/N
// runs on every CPU of an SMP kernel) and reads their run times, which
// only grow; after Close it reads none.
func TestMeterReadsTheTargetsKernelThreads(t *testing.T) {
	cpus, err := sched.GetAffinity(0)
	if err != nil {
		t.Fatal(err)
	}
	target := cpuset.Of(cpus.CPUs()[cpus.Len()-1])
	m := NewMeter(fsroot.Host, nil, target)
	defer m.Close()
	a, _ := m.Read()
	b, _ := m.Read()
	migration := fmt.Sprintf("migration/%d", target.First())
	var found bool
	for _, k := range b.Kernel {
		found = found || k.Comm == migration
		for _, was := range a.Kernel {
			if was.PID == k.PID && k.Run < was.Run {
				t.Errorf("%s (%d) ran %v, then %v", k.Comm, k.PID, was.Run, k.Run)
			}
		}
	}
	if !found {
		t.Errorf("no %s among the kernel threads of CPU %s: %+v", migration, target, b.Kernel)
	}
	m.Close()
	if r, _ := m.Read(); r.Kernel != nil {
		t.Errorf("read %+v after Close", r.Kernel)
	}
}

// Only kernel threads (PF_KTHREAD, or children of kthreadd) allowed on
// the target alone are the target's own: not one allowed on more CPUs,
// nor a user task pinned there. Where the kernel lists kthreadd's
// children, only those are read.
func TestKernelThreadsOfTheTarget(t *testing.T) {
	for _, listed := range []bool{false, true} {
		t.Run(fmt.Sprintf("children listed %v", listed), func(t *testing.T) {
			root := t.TempDir()
			task := func(pid, ppid int, comm string, flags uint64, cpu int, allowed, run string) {
				p := strconv.Itoa(pid)
				dir := filepath.Join(root, "proc", p, "task", p)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				stat := fmt.Sprintf("%d (%s) S %d 0 0 0 -1 %d 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 %d 0 0 0 0 0\n", pid, comm, ppid, flags, cpu)
				for name, data := range map[string]string{"stat": stat, "status": "Name:\t" + comm + "\nCpus_allowed_list:\t" + allowed + "\n", "task/" + p + "/schedstat": run + " 0 1\n"} {
					if err := os.WriteFile(filepath.Join(root, "proc", p, name), []byte(data), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			task(2, 0, "kthreadd", 0x00208040, 0, "0-3", "100")
			task(26, 2, "migration/3", 0x00208040, 3, "3", "5000")
			task(27, 2, "ksoftirqd/3", 0, 3, "3", "7000") // a kthreadd child whose flags do not say so
			task(12, 2, "kworker/u16:0", 0x04208060, 3, "0-3", "9000")
			task(13, 2, "kworker/2:1", 0x04208060, 2, "2", "9000")
			task(500, 1, "pinned", 0x00400100, 3, "3", "11000")
			if listed {
				if err := os.WriteFile(filepath.Join(root, "proc/2/task/2/children"), []byte("12 13 26 27 "), 0o644); err != nil {
					t.Fatal(err)
				}
				// A thread the kernel does not list is not read.
				task(28, 2, "cpuhp/3", 0x00208040, 3, "3", "3000")
			}
			m := NewMeter(fsroot.Root(root), nil, cpuset.Of(3))
			defer m.Close()
			r, _ := m.Read()
			want := []KernelThread{{PID: 26, Comm: "migration/3", Run: 5000}, {PID: 27, Comm: "ksoftirqd/3", Run: 7000}}
			if !slices.Equal(r.Kernel, want) {
				t.Errorf("kernel threads %+v, want %+v", r.Kernel, want)
			}
		})
	}
}

// On the live system a task's allowed CPUs come from sched_getaffinity;
// they are the ones its status file lists, which another root reads.
func TestAllowedAgreesWithStatus(t *testing.T) {
	pids, err := procfs.Children(fsroot.Host, kthreadd, kthreadd)
	if err != nil || len(pids) == 0 {
		t.Skipf("kthreadd's children cannot be listed here (CONFIG_PROC_CHILDREN, or a PID namespace): %v", err)
	}
	for _, pid := range pids[:min(len(pids), 20)] {
		got, err := allowed(fsroot.Host, pid)
		if err != nil {
			continue // gone meanwhile
		}
		status, err := procfs.ReadStatus(fsroot.Host, pid)
		if err != nil {
			continue
		}
		want, err := cpuset.Parse(status.CPUsAllowed)
		if err != nil {
			t.Fatalf("task %d: Cpus_allowed_list %q: %v", pid, status.CPUsAllowed, err)
		}
		if !got.Equal(want) {
			t.Errorf("task %d: sched_getaffinity says %s, its status %s", pid, got, want)
		}
	}
}
