// Package watch follows the threads of a running process and its
// descendants: where each runs, how much CPU it takes, and — when asked to
// maintain — puts back the affinity and scheduling attributes of any thread
// that drifted from them, from outside the process.
//
// A thread is identified by its TID and its start time, since the kernel
// reuses TIDs. Compute threads are those whose CPU time grows. The
// watcher's own thread runs off the CPUs it is told to avoid, so that it
// never takes time from the work it watches.
package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/observer"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// Options configure a watcher.
type Options struct {
	PID    int
	Period time.Duration // 100 ms by default
	// Mask is the CPU mask threads are kept on (the target's); residency
	// is measured against it.
	Mask cpuset.Set
	// Want is the policy, priority and nice value threads are kept at;
	// nil leaves attributes alone.
	Want *sched.Attr
	// Maintain re-asserts Mask and Want on threads that drifted; without
	// it the watcher only observes.
	Maintain bool
	// Restore puts back, when the watcher stops, what Maintain changed:
	// each thread's mask and attributes as they were before the first
	// change (see restore.go). For a process that outlives the watcher
	// (corepin watch --maintain); a child that ends with it needs none.
	Restore bool
	// Avoid is where the watcher's own thread must not run (the target).
	Avoid cpuset.Set
	// Children follows the process's descendants too.
	Children bool
	// Priority is the watcher thread's own: "" asks for the highest it
	// may have (fifo:1, else nice -20; see keepup.go), PriorityAsIs
	// leaves it alone, and a name from watcherPriorities asks for that.
	Priority string
	// Members lists more processes of the same tree to follow with their
	// descendants: orphans reparented away from PID, or the members of the
	// run's cgroup. nil adds none.
	Members func() []int
	// TIDs, when given, are the only threads of PID that are followed: the
	// work's thread when the work runs inside corepin, whose other threads
	// are corepin's own.
	TIDs []int
	// Root is the folder holding proc/; the live system by default.
	Root fsroot.Root
}

type key struct {
	tid   int
	start uint64
}

type thread struct {
	evidence.ThreadStat
	baseTicks, lastTicks uint64
	seen                 bool // still listed at the last sample
	files                *taskFiles
	// The schedstat and sched counts when first seen (zero for a thread
	// born while followed) and at the last read.
	baseSched, lastSched procfs.SchedStat
	haveSched            bool
	baseDebug, lastDebug procfs.SchedDebug
	haveDebug            bool
	// runTime is the run time schedstat gave the thread between samples,
	// onTargetTime the part of it after which the thread was seen on the
	// target; weighedRun is schedstat's run time when last weighed.
	runTime, onTargetTime, weighedRun time.Duration
	weighed                           bool
	// was is what the watcher changed on it, as it was before (Restore).
	was original
}

// Watcher follows a process until stopped.
type Watcher struct {
	opts      Options
	loop      *observer.Loop
	stopOnce  sync.Once
	raisesAll bool // the process's threads are raised while it runs (see priority.go)
	mu        sync.Mutex
	threads   map[key]*thread
	order     []key
	byTID     map[int]*thread // the thread now known at each TID
	buf       []byte
	res       evidence.Watch
	// lastTicks is the time of the previous sample in clock ticks since
	// boot (from /proc/uptime), to recognise threads born since then;
	// firstTicks that of the first sample.
	lastTicks, firstTicks uint64
	offline               *evidence.Offline
	last                  bool // the last sample: read every thread's sched file
	// statOnly samples the way the watcher did before it read the
	// scheduler's account: stat alone, opened afresh each time. The
	// benchmark that prices the account compares against it.
	statOnly bool
	// procWas holds, by PID, the first original saved in each process,
	// which the threads it starts later inherit (Restore).
	procWas  map[int]original
	restored bool // restore has run
}

// Start begins watching. The first sample is taken at once.
func Start(ctx context.Context, opts Options) (*Watcher, error) {
	if opts.Period == 0 {
		opts.Period = 100 * time.Millisecond
	}
	if opts.Period < MinPeriod {
		return nil, fmt.Errorf("watching: a period of %v is shorter than %v", opts.Period, MinPeriod)
	}
	if opts.PID <= 0 {
		return nil, fmt.Errorf("watching: %d is not a process id", opts.PID)
	}
	if _, err := opts.Root.Stat(filepath.Join("proc", strconv.Itoa(opts.PID), "task")); err != nil {
		return nil, fmt.Errorf("watching process %d: %w", opts.PID, err)
	}
	w := newWatcher(opts)
	w.raisesAll = opts.Priority != PriorityAsIs && opts.PID != os.Getpid()
	w.res.PeriodMs = int(opts.Period / time.Millisecond)
	w.res.Threads = []evidence.ThreadStat{}
	var err error
	// The clock starts now: a watcher whose thread is starved before its
	// first sample has missed those ticks too.
	var clock ticks
	clock.begin(time.Now(), opts.Period)
	var priority string
	w.loop, err = observer.Start(ctx, opts.Period, opts.Avoid, observer.Funcs{
		// Raised before the thread moves among the work's threads.
		Prepare: func() { priority = raiseProcess(opts.Priority, w.raisesAll) },
		First:   w.sample,
		Tick: func() {
			clock.tick(time.Now())
			w.sample()
		},
		Last: func() {
			// A last look: launch.Run stops the watcher after the child
			// exited but before it is reaped, so its final CPU times are
			// still there to read.
			w.last = true
			w.sample()
			w.closeAll()
			t, err := sched.ThreadCPUTime(0)
			w.mu.Lock()
			if err == nil {
				w.res.WatcherCPUSeconds = t.Seconds()
			}
			w.res.KeepUp = clock.result(time.Now(), t, priority)
			w.mu.Unlock()
		},
	})
	if err != nil {
		if w.raisesAll {
			lowerProcess()
		}
		return nil, fmt.Errorf("placing the watcher: %w", err)
	}
	w.mu.Lock()
	w.res.WatcherCPUs = w.loop.CPUs
	if note := w.loop.SharedNote("watcher"); note != "" {
		w.addError(note)
	}
	w.mu.Unlock()
	return w, nil
}

func newWatcher(opts Options) *Watcher {
	return &Watcher{opts: opts, threads: map[key]*thread{}, byTID: map[int]*thread{}, buf: make([]byte, 16<<10), procWas: map[int]original{}}
}

// Stop ends watching, takes a last sample, puts back what it changed when
// asked to (Options.Restore), and returns the result.
func (w *Watcher) Stop() evidence.Watch {
	w.loop.Stop()
	if w.raisesAll {
		w.stopOnce.Do(lowerProcess)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.opts.Restore && !w.restored {
		w.restored = true
		w.restore()
	}
	return w.result()
}

func (w *Watcher) result() evidence.Watch {
	res := w.res
	res.Threads = make([]evidence.ThreadStat, 0, len(w.order))
	var running, onTarget, migrations int
	var run, wait, runTime, onTargetTime time.Duration
	byTime := true
	var invol int64
	haveSched, haveDebug := false, true
	for _, k := range w.order {
		t := w.threads[k]
		st := t.ThreadStat
		st.CPUSeconds = float64(t.lastTicks-t.baseTicks) / procfs.UserHZ
		if t.haveSched {
			r, wt := (t.lastSched.Run - t.baseSched.Run).Seconds(), (t.lastSched.Wait - t.baseSched.Wait).Seconds()
			st.RunS, st.WaitS = &r, &wt
			run += t.lastSched.Run - t.baseSched.Run
			wait += t.lastSched.Wait - t.baseSched.Wait
			haveSched = true
		}
		if t.haveDebug && t.lastDebug.Migrations >= 0 {
			st.Migrations = int(t.lastDebug.Migrations - t.baseDebug.Migrations)
		} else {
			haveDebug = false
		}
		if t.haveDebug && t.lastDebug.Involuntary >= 0 {
			n := t.lastDebug.Involuntary - t.baseDebug.Involuntary
			st.Involuntary = &n
			invol += n
		}
		migrations += st.Migrations
		switch {
		case t.runTime > 0:
			r := float64(t.onTargetTime) / float64(t.runTime)
			st.OnTargetRatio = &r
		case st.Running > 0:
			r := float64(st.OnTarget) / float64(st.Running)
			st.OnTargetRatio = &r
		}
		running += st.Running
		onTarget += st.OnTarget
		if t.haveSched {
			runTime, onTargetTime = runTime+t.runTime, onTargetTime+t.onTargetTime
		} else {
			byTime = false
		}
		res.Threads = append(res.Threads, st)
	}
	// Residency is the share of the threads' run time seen on the target
	// where schedstat gives every thread's, else the share of the samples
	// in which a thread had run.
	switch {
	case byTime && runTime > 0:
		r := float64(onTargetTime) / float64(runTime)
		res.OnTargetRatio = &r
	case running > 0:
		r := float64(onTarget) / float64(running)
		res.OnTargetRatio = &r
	}
	res.Migrations, res.MigrationsSource = w.res.SampledMigrations, "sampled"
	if haveDebug && len(w.order) > 0 {
		res.Migrations, res.MigrationsSource = migrations, "sched"
		res.Involuntary = &invol
	}
	if haveSched {
		r, wt := run.Seconds(), wait.Seconds()
		res.RunS, res.WaitS = &r, &wt
	}
	res.Errors = slices.Clone(w.res.Errors)
	res.TargetOffline = w.offlineResult()
	return res
}

// sample reads every thread of the process (and its descendants) once.
func (w *Watcher) sample() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.res.Samples++
	now := w.uptimeTicks()
	if w.firstTicks == 0 {
		w.firstTicks = now
	}
	w.checkOnline(now)
	for _, t := range w.threads {
		t.seen = false
	}
	if len(w.opts.TIDs) > 0 {
		for _, tid := range w.opts.TIDs {
			w.sampleThread(w.opts.PID, tid)
		}
	} else {
		for _, pid := range w.processes() {
			for _, tid := range w.tasks(pid) {
				w.sampleThread(pid, tid)
			}
		}
	}
	for tid, t := range w.byTID {
		if !t.seen {
			t.files.close()
			delete(w.byTID, tid)
		}
	}
	w.lastTicks = now
}

// closeAll closes every thread's files.
func (w *Watcher) closeAll() {
	for tid, t := range w.byTID {
		t.files.close()
		delete(w.byTID, tid)
	}
}

// uptimeTicks reads the time since boot in clock ticks; 0 when unknown.
func (w *Watcher) uptimeTicks() uint64 {
	data, err := w.opts.Root.ReadFile("/proc/uptime")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	s, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	return uint64(s * procfs.UserHZ)
}

func (w *Watcher) procPath(parts ...string) string {
	return w.opts.Root.Path(append([]string{"proc"}, parts...)...)
}

// processes returns the PID and, when following children, its descendants
// from the children lists of each task.
func (w *Watcher) processes() []int {
	pids := []int{w.opts.PID}
	if !w.opts.Children {
		return pids
	}
	seen := map[int]bool{w.opts.PID: true}
	if w.opts.Members != nil {
		for _, pid := range w.opts.Members() {
			if !seen[pid] {
				seen[pid] = true
				pids = append(pids, pid)
			}
		}
	}
	for i := 0; i < len(pids); i++ {
		for _, tid := range w.tasks(pids[i]) {
			children, _ := procfs.Children(w.opts.Root, pids[i], tid)
			for _, c := range children {
				if !seen[c] {
					seen[c] = true
					pids = append(pids, c)
				}
			}
		}
	}
	return pids
}

func (w *Watcher) tasks(pid int) []int {
	entries, err := os.ReadDir(w.procPath(strconv.Itoa(pid), "task"))
	if err != nil {
		return nil
	}
	tids := make([]int, 0, len(entries))
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids
}

func (w *Watcher) readStat(pid, tid int) (procfs.TaskStat, error) {
	data, err := fsroot.ReadFile(w.procPath(strconv.Itoa(pid), "task", strconv.Itoa(tid), "stat"))
	if err != nil {
		return procfs.TaskStat{}, err
	}
	return ParseTaskStat(data)
}

// files returns the open files of the thread at tid and its stat now. A
// thread whose files no longer read is gone; its TID may be another
// thread's now, whose files are opened.
func (w *Watcher) files(pid, tid int) (*taskFiles, procfs.TaskStat, error) {
	if w.statOnly {
		st, err := w.readStat(pid, tid)
		return &taskFiles{-1, -1, -1}, st, err
	}
	if t := w.byTID[tid]; t != nil {
		if data, err := t.files.read(t.files.stat, w.buf); err == nil {
			st, err := ParseTaskStat(data)
			return t.files, st, err
		}
		t.files.close()
		delete(w.byTID, tid)
	}
	f := openTask(w.procPath(strconv.Itoa(pid), "task"), tid)
	data, err := f.read(f.stat, w.buf)
	if err != nil {
		f.close()
		return nil, procfs.TaskStat{}, err // the thread ended between the listing and the read
	}
	st, err := ParseTaskStat(data)
	if err != nil {
		f.close()
	}
	return f, st, err
}

func (w *Watcher) sampleThread(pid, tid int) {
	f, st, err := w.files(pid, tid)
	if err != nil {
		return
	}
	k := key{tid, st.StartTime}
	t, ok := w.threads[k]
	born := false
	if !ok {
		// A new thread, or a reused TID: (tid, start time) is new either way.
		t = &thread{ThreadStat: evidence.ThreadStat{PID: pid, TID: tid, Start: st.StartTime, Name: st.Comm, LastCPU: st.Processor},
			baseTicks: st.CPUTicks(), lastTicks: st.CPUTicks()}
		w.threads[k] = t
		w.order = append(w.order, k)
		// A thread born since the last sample spent all its CPU time in
		// this interval: count it from zero, or a short-lived compute
		// thread would never be seen running.
		if w.lastTicks > 0 && st.StartTime >= w.lastTicks {
			t.baseTicks, t.lastTicks = 0, 0
			born = true
		}
	}
	if t.files != f {
		if t.files != nil && t.files != f {
			t.files.close()
		}
		t.files = f
	}
	w.byTID[tid] = t
	grew := false
	if ticks := st.CPUTicks(); ticks > t.lastTicks {
		grew = true
		t.Running++
		t.Compute = true
		if w.opts.Mask.Contains(st.Processor) {
			t.OnTarget++
		}
		if st.Processor != t.LastCPU {
			t.SampledMigrations++
			t.Migrations++
			w.res.SampledMigrations++
		}
		t.lastTicks = ticks
	}
	if !w.statOnly {
		w.readSched(t, !ok, born, grew)
		if t.haveSched {
			w.weigh(t, st.Processor)
		}
	}
	t.Name, t.LastCPU, t.seen = st.Comm, st.Processor, true
	if w.opts.Maintain {
		w.maintain(t, pid, k, !ok && w.res.Samples > 1, st.PPid)
	}
}

// weigh adds the time the thread ran since the last sample (schedstat's,
// in nanoseconds) to the CPU it is seen on now, so that residency is a
// share of CPU time. Counting the samples in which its clock ticks grew
// cannot serve a thread that runs less than a tick between samples: of
// 500 threads sharing the target, hardly one shows a tick, and the few
// samples left were those taken as they escaped.
func (w *Watcher) weigh(t *thread, cpu int) {
	if !t.weighed {
		t.weighedRun, t.weighed = t.baseSched.Run, true
	}
	d := t.lastSched.Run - t.weighedRun
	t.weighedRun = t.lastSched.Run
	if d <= 0 {
		return
	}
	t.runTime += d
	if w.opts.Mask.Contains(cpu) {
		t.onTargetTime += d
	}
}

// readSched reads the thread's schedstat every sample and its sched file
// (a larger one) when the thread is new, ran since the last sample, or at
// the last sample: a thread that did not run did not migrate. A thread
// born while followed counts from zero.
func (w *Watcher) readSched(t *thread, isNew, born, ran bool) {
	if data, err := t.files.read(t.files.schedstat, w.buf); err == nil {
		if ss, err := procfs.ParseSchedStat(data); err == nil {
			if isNew && !born {
				t.baseSched = ss
			}
			t.lastSched, t.haveSched = ss, true
		}
	}
	if !isNew && !ran && !w.last {
		return
	}
	if data, err := t.files.read(t.files.sched, w.buf); err == nil {
		if d, err := procfs.ParseSchedDebug(data); err == nil {
			if isNew {
				t.baseDebug = d
				if born {
					t.baseDebug = procfs.SchedDebug{}
				}
			}
			t.lastDebug, t.haveDebug = d, true
		}
	}
}

// maintain puts back the mask and attributes of a thread that drifted. The
// start time is checked again just before, so a TID that was reused in the
// meantime is left alone. With Restore, what the thread had is kept first;
// a thread born since the first sample (born, of a process whose parent is
// ppid) that is already as asked took it from the thread that started it,
// and is given that thread's original.
func (w *Watcher) maintain(t *thread, pid int, k key, born bool, ppid int) {
	fix := func(what string, get func() (bool, error), keep func(), set func() error) {
		ok, err := get()
		if err != nil {
			return
		}
		if ok {
			if born && w.opts.Restore {
				t.was.inherit(what, w.inherited(pid, k.tid, ppid))
				w.keepFirst(pid, t.was) // a new process's, for its own threads
			}
			return
		}
		if st, err := w.readStat(pid, k.tid); err != nil || st.StartTime != k.start {
			return
		}
		if w.opts.Restore {
			keep()
			w.keepFirst(pid, t.was)
		}
		if err := set(); err != nil {
			if what == "affinity" && errors.Is(err, unix.EINVAL) && w.targetGone() {
				w.checkOnline(w.uptimeTicks()) // the CPU went offline since this sample began
				return
			}
			w.addError(fmt.Sprintf("re-asserting %s on thread %d: %v", what, k.tid, err))
			return
		}
		t.Reasserts++
		w.res.Reasserts++
	}
	// Once the target has gone offline the work runs elsewhere; a mask of
	// offline CPUs cannot be set (EINVAL), so it is not asked for again.
	if !w.opts.Mask.IsEmpty() && w.offline == nil {
		var mask cpuset.Set
		fix("affinity", func() (bool, error) {
			var err error
			mask, err = sched.GetAffinity(k.tid)
			return mask.IsSubsetOf(w.opts.Mask), err
		}, func() { t.was.keepMask(mask) }, func() error { return sched.SetAffinity(k.tid, w.opts.Mask) })
	}
	if want := w.opts.Want; want != nil {
		var attr sched.Attr
		fix("attributes", func() (bool, error) {
			var err error
			attr, err = sched.GetAttr(k.tid)
			return w.asWanted(attr), err
		}, func() { t.was.keepAttr(attr) }, func() error {
			a := *want
			a.Runtime = 0
			return sched.SetAttr(k.tid, a)
		})
	}
}

// asWanted says whether a thread's attributes are those Want asks for.
func (w *Watcher) asWanted(a sched.Attr) bool {
	want := w.opts.Want
	return a.Policy == want.Policy && a.Priority == want.Priority && (a.Policy.Realtime() || a.Nice == want.Nice)
}

func (w *Watcher) addError(e string) {
	if len(w.res.Errors) < 20 && !slices.Contains(w.res.Errors, e) {
		w.res.Errors = append(w.res.Errors, e)
	}
}
