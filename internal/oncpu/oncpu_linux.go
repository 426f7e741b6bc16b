package oncpu

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
)

// btfPath is where a kernel built with CONFIG_DEBUG_INFO_BTF describes its
// own types; tp_btf programs and CO-RE relocations both need it.
const btfPath = "/sys/kernel/btf/vmlinux"

// unseen marks a CPU's current task as not known yet: the program sets it
// at the CPU's first switch.
const unseen = ^uint32(0)

type sysTracer struct {
	objs    bpfObjects
	link    link.Link
	watched []int
}

// load checks for kernel BTF and loads the program and its maps, the
// tasks and waits maps sized for maxTasks entries each, and the slices
// map for a log of SlicesPerCPU on each of logCPUs CPUs.
func load(maxTasks, logCPUs int) (*bpfObjects, error) {
	if _, err := os.Stat(btfPath); err != nil {
		return nil, fmt.Errorf("oncpu: kernel BTF (%s, CONFIG_DEBUG_INFO_BTF) is missing: %w (%w)", btfPath, errors.ErrUnsupported, err)
	}
	spec, err := loadBpf()
	if err != nil {
		return nil, fmt.Errorf("oncpu: reading the embedded sched_switch program: %w", err)
	}
	spec.Maps["tasks"].MaxEntries = uint32(maxTasks)
	spec.Maps["waits"].MaxEntries = uint32(maxTasks)
	spec.Maps["slices"].MaxEntries = uint32(SlicesPerCPU * max(1, logCPUs))
	var objs bpfObjects
	if err := spec.LoadAndAssign(&objs, nil); err != nil {
		return nil, loadError("loading the sched_switch program", err)
	}
	return &objs, nil
}

// loadError names what was being done and keeps both the errno and, where
// cilium/ebpf says the kernel lacks a feature, errors.ErrUnsupported.
func loadError(doing string, err error) error {
	switch {
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("oncpu: %s (needs root, or CAP_BPF and CAP_PERFMON): %w", doing, err)
	case errors.Is(err, ebpf.ErrNotSupported):
		return fmt.Errorf("oncpu: %s: %w: %w", doing, errors.ErrUnsupported, err)
	}
	return fmt.Errorf("oncpu: %s: %w", doing, err)
}

func attach(objs *bpfObjects) (link.Link, error) {
	l, err := link.AttachTracing(link.TracingOptions{Program: objs.OnSwitch, AttachType: ebpf.AttachTraceRawTp})
	if err != nil {
		return nil, loadError("attaching to tp_btf/sched_switch", err)
	}
	return l, nil
}

func start(cpus cpuset.Set) (*sysTracer, error) { return startWith(cpus, MaxTasks) }

func startWith(cpus cpuset.Set, maxTasks int) (*sysTracer, error) {
	if cpus.IsEmpty() {
		return nil, errors.New("oncpu: no CPU to watch")
	}
	possible, err := ebpf.PossibleCPU()
	if err != nil {
		return nil, fmt.Errorf("oncpu: reading the possible CPUs: %w", err)
	}
	if last := cpus.Last(); last >= possible {
		return nil, fmt.Errorf("oncpu: CPU %d is not a possible CPU on this system (0-%d)", last, possible-1)
	}
	objs, err := load(maxTasks, cpus.Len())
	if err != nil {
		return nil, err
	}
	// The watched CPUs start their first slice now: the task that is on
	// one of them when the program attaches is charged from here at its
	// first switch, so that Busy+Idle is the whole time to Stop. Each
	// logs its slices in its own part of the slices map.
	states := make([]bpfCpuState, possible)
	now := monotonic()
	for i, c := range cpus.CPUs() {
		states[c] = bpfCpuState{Watched: 1, Since: now, CurrPid: unseen, LogBase: uint32(i * SlicesPerCPU)}
	}
	if err := objs.Cpus.Put(uint32(0), states); err != nil {
		objs.Close()
		return nil, fmt.Errorf("oncpu: marking CPUs %s as watched: %w", cpus, err)
	}
	l, err := attach(objs)
	if err != nil {
		objs.Close()
		return nil, err
	}
	return &sysTracer{objs: *objs, link: l, watched: cpus.CPUs()}, nil
}

func (t *sysTracer) stop() (Account, error) {
	if t.link == nil {
		return Account{}, errors.New("oncpu: the tracer was stopped already")
	}
	defer t.objs.Close()
	err := t.link.Close()
	t.link = nil
	if err != nil {
		return Account{}, fmt.Errorf("oncpu: detaching from sched_switch: %w", err)
	}
	a, err := t.read()
	if err != nil {
		return Account{}, fmt.Errorf("oncpu: reading the account: %w", err)
	}
	return a, nil
}

func (t *sysTracer) snapshot() (Account, error) {
	if t.link == nil {
		return Account{}, errors.New("oncpu: the tracer was stopped already")
	}
	a, err := t.read()
	if err != nil {
		return Account{}, fmt.Errorf("oncpu: reading the account: %w", err)
	}
	return a, nil
}

// read collects the maps and charges what was under way at the account's
// moment: each CPU's current task, and the waits that had not ended.
//
// The moment is taken after the tasks and waits maps are read, which
// takes longer the more threads ever ran on the watched CPUs (half a
// millisecond and more), and just before the per-CPU state: taken first,
// it left the slices of that whole read past the account's end, and a
// reading of the target made after the snapshot saw a window the slices
// did not reach. A CPU that switched between the clock's read and its
// state's moves the moment to that switch, so that every slice the state
// counts ended by the moment and the one under way on each CPU was under
// way at it: one moment for every watched CPU.
func (t *sysTracer) read() (Account, error) {
	type key = bpfTaskKey
	vals := map[key]bpfTaskVal{}
	var k key
	var v bpfTaskVal
	iter := t.objs.Tasks.Iterate()
	for iter.Next(&k, &v) {
		vals[k] = v
	}
	if err := iter.Err(); err != nil {
		return Account{}, fmt.Errorf("tasks map: %w", err)
	}
	type wait struct {
		pid uint32
		val bpfWaitVal
	}
	var waits []wait
	var pid uint32
	var w bpfWaitVal
	witer := t.objs.Waits.Iterate()
	for witer.Next(&pid, &w) {
		waits = append(waits, wait{pid, w})
	}
	if err := witer.Err(); err != nil {
		return Account{}, fmt.Errorf("waits map: %w", err)
	}
	lost, err := t.lost()
	if err != nil {
		return Account{}, err
	}

	now := monotonic()
	var states []bpfCpuState
	if err := t.objs.Cpus.Lookup(uint32(0), &states); err != nil {
		return Account{}, fmt.Errorf("per-CPU state: %w", err)
	}
	at := now
	switching := map[int]bool{}
	for i, c := range t.watched {
		st := &states[c]
		if end, err := t.switchedAt(i, st); err != nil {
			return Account{}, err
		} else if end > st.Since {
			st.Since, switching[c] = end, true
		}
		at = max(at, st.Since)
	}
	a := Account{Busy: map[int]time.Duration{}, Idle: map[int]time.Duration{}, Lost: lost,
		at: time.Duration(at), seq: map[int]uint64{}, open: map[int]Slice{}}
	for _, c := range t.watched {
		st := states[c]
		busy, idle := st.BusyNs, st.IdleNs
		a.seq[c] = st.LogSeq
		if at > st.Since && !switching[c] {
			d := at - st.Since
			if st.CurrPid == unseen {
				a.NoSwitch = append(a.NoSwitch, c)
			} else if st.CurrPid == 0 {
				idle += d
			} else {
				// The task still on the CPU ran from its switch-in to
				// the moment: its run time since then, by the account
				// the program uses, where the kernel still has it and
				// it is not more than the wall time (the task may have
				// run on since, or elsewhere after a detach).
				if rt, err := readRuntime(st.CurrTgid, st.CurrPid); err == nil && rt >= st.CurrRuntime {
					d = min(d, rt-st.CurrRuntime)
				}
				busy += d
				ck := key{Tgid: st.CurrTgid, Pid: st.CurrPid, Cpu: uint32(c)}
				cv := vals[ck]
				cv.OnNs += d
				cv.Comm = st.CurrComm
				vals[ck] = cv
				a.open[c] = Slice{PID: int(st.CurrTgid), TID: int(st.CurrPid), Comm: comm(st.CurrComm), CPU: c,
					Start: time.Duration(st.Since), End: time.Duration(at), OnCPU: time.Duration(d)}
			}
		}
		a.Busy[c] = time.Duration(busy)
		a.Idle[c] = time.Duration(idle)
	}

	for _, w := range waits {
		wk := key{Tgid: w.val.Tgid, Pid: w.pid, Cpu: w.val.Cpu}
		if wv, ok := vals[wk]; ok && w.val.Since != 0 && at > w.val.Since {
			wv.WaitNs += at - w.val.Since
			vals[wk] = wv
		}
	}

	for k, v := range vals {
		a.Tasks = append(a.Tasks, Task{
			PID: int(k.Tgid), TID: int(k.Pid), CPU: int(k.Cpu),
			Comm:  comm(v.Comm),
			OnCPU: time.Duration(v.OnNs), Waited: time.Duration(v.WaitNs),
		})
	}
	sortTasks(a.Tasks)
	return a, nil
}

// switchedAt is when the last slice that st counts as logged ended, 0
// for none. The program writes a CPU's state field by field as the CPU
// switches, and a copy taken meanwhile counts the slice that just ended
// while its since is still the slice's start: then its task is no longer
// on the CPU, the one after it is not named yet, and the switch is at
// the slice's end, after since.
func (t *sysTracer) switchedAt(i int, st *bpfCpuState) (uint64, error) {
	if st.LogSeq == 0 {
		return 0, nil
	}
	var last bpfSlice
	idx := uint32(i*SlicesPerCPU) + uint32((st.LogSeq-1)%SlicesPerCPU)
	if err := t.objs.Slices.Lookup(idx, &last); err != nil {
		return 0, fmt.Errorf("the CPU's last slice: %w", err)
	}
	return last.End, nil
}

// lost reads the program's counts of what did not fit in its maps.
func (t *sysTracer) lost() (Lost, error) {
	var slices, lostNs, waits uint64
	for _, c := range []struct {
		v   *ebpf.Variable
		dst *uint64
	}{{t.objs.LostSlices, &slices}, {t.objs.LostNs, &lostNs}, {t.objs.LostWaits, &waits}} {
		if err := c.v.Get(c.dst); err != nil {
			return Lost{}, fmt.Errorf("lost counters: %w", err)
		}
	}
	return Lost{Slices: int(slices), Time: time.Duration(lostNs), Waits: int(waits)}, nil
}

// slices reads each watched CPU's log between two snapshots: the slices
// logged after from and up to to, then the one under way at to.
func (t *sysTracer) slices(from, to Account) ([]Slice, int, error) {
	if t.link == nil {
		return nil, 0, errors.New("oncpu: the tracer was stopped already")
	}
	var out []Slice
	lost := 0
	for i, c := range t.watched {
		first, end := from.seq[c], to.seq[c]
		if end < first {
			return nil, 0, fmt.Errorf("oncpu: CPU %d's slices: the snapshots are in the wrong order", c)
		}
		if end-first > SlicesPerCPU {
			lost += int(end - first - SlicesPerCPU)
			first = end - SlicesPerCPU
		}
		cpuSlices := make([]Slice, 0, end-first)
		for seq := first; seq < end; seq++ {
			idx := uint32(i*SlicesPerCPU) + uint32(seq%SlicesPerCPU)
			var v bpfSlice
			if err := t.objs.Slices.Lookup(idx, &v); err != nil {
				return nil, 0, fmt.Errorf("oncpu: reading CPU %d's slice %d: %w", c, seq, err)
			}
			cpuSlices = append(cpuSlices, Slice{PID: int(v.Tgid), TID: int(v.Pid), Comm: comm(v.Comm), CPU: c,
				Start: time.Duration(v.Start), End: time.Duration(v.End), OnCPU: time.Duration(v.RunNs)})
		}
		// The CPU went on switching while its log was read: what it
		// wrote over since is no longer the slice that was there.
		var states []bpfCpuState
		if err := t.objs.Cpus.Lookup(uint32(0), &states); err != nil {
			return nil, 0, fmt.Errorf("oncpu: reading the per-CPU state: %w", err)
		}
		if now := states[c].LogSeq; now > SlicesPerCPU && now-SlicesPerCPU > first {
			over := int(min(now-SlicesPerCPU, end) - first)
			lost += over
			cpuSlices = cpuSlices[over:]
		}
		if o, ok := to.open[c]; ok {
			cpuSlices = append(cpuSlices, o)
		}
		out = append(out, clip(cpuSlices, from, to)...)
	}
	return out, lost, nil
}

// readRuntime reads a thread's sum_exec_runtime from its schedstat.
func readRuntime(tgid, pid uint32) (uint64, error) {
	ss, err := procfs.ReadSchedStat(fsroot.Host, int(tgid), int(pid))
	return uint64(ss.Run), err
}

// comm turns the kernel's NUL-padded task name into a string.
func comm(raw [16]int8) string {
	b := make([]byte, 0, len(raw))
	for _, c := range raw {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}

// monotonic is the clock bpf_ktime_get_ns reads.
func monotonic() uint64 {
	var ts unix.Timespec
	// CLOCK_MONOTONIC cannot fail on Linux.
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return uint64(ts.Nano())
}

func supported() (string, error) {
	objs, err := load(MaxTasks, 1)
	if err != nil {
		return "", err
	}
	defer objs.Close()
	l, err := attach(objs)
	if err != nil {
		return "", err
	}
	if err := l.Close(); err != nil {
		return "", fmt.Errorf("oncpu: detaching from sched_switch: %w", err)
	}
	return "kernel BTF at " + btfPath + "; a tp_btf/sched_switch program loaded, attached and detached", nil
}
