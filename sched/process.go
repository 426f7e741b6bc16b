package sched

import (
	"fmt"
	"os"
	"sync"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// corepin keeps its own threads off a run's target for the run
// (KeepProcessOff). Runs may overlap in one process — a program using
// corepin as a library may start two, and go test runs parallel tests in
// one — so the moves are kept in one record: the masks the threads had
// before the first run moved them, the CPUs each run in progress keeps
// them off, and the threads that do a run's work, which stay where their
// sessions put them. Each run's end puts the threads where the runs still
// in progress need them; the last puts back what was there. Without the
// record a second run would take the first's reduced mask for the
// original and put it back after the first had ended, leaving the
// process's threads off a CPU for good.
var process struct {
	sync.Mutex
	orig cpuset.Set         // the main thread's mask before the first run
	prev map[int]cpuset.Set // each moved thread's mask before the first run moved it
	runs map[*keptOff]bool  // the runs in progress
	held map[int]int        // threads that do a run's work, with how many hold each
	// mainMask is the main thread's mask when a session first held it,
	// before the session moved it: InheritedMask's answer meanwhile.
	mainMask *cpuset.Set
	where    Placement // where the runs in progress put the threads
}

// keptOff is one run's share of the record: the CPUs it keeps off.
type keptOff struct{ avoid, core cpuset.Set }

// KeepProcessOff moves every thread of this process off avoid and, where
// any other CPU is allowed, off core (avoid with its SMT siblings), so
// that nothing of corepin's own takes time from the work on avoid, and
// returns where the threads now run and a function that ends the move.
// Threads created in the meantime inherit the reduced mask from their
// creator (the Go runtime starts threads from a locked goroutine's thread
// through a template thread, which is moved too) and get the process's
// original mask at the end. The listing is repeated until it finds no
// thread it has not moved, so that a thread started by one not yet moved
// is not missed.
//
// With other runs in progress the threads keep off all their CPUs. Where
// that leaves no CPU (every allowed CPU is some run's target), the
// threads stay where they are, the returned end does nothing, and the
// error wraps ErrNoOtherCPU.
func KeepProcessOff(root fsroot.Root, avoid, core cpuset.Set) (Placement, func() error, error) {
	process.Lock()
	defer process.Unlock()
	if len(process.runs) == 0 {
		orig, err := GetAffinity(0)
		if err != nil {
			return Placement{}, func() error { return nil }, fmt.Errorf("reading corepin's own mask: %w", err)
		}
		process.orig, process.prev, process.runs = orig, map[int]cpuset.Set{}, map[*keptOff]bool{}
	}
	run := &keptOff{avoid: avoid, core: core}
	process.runs[run] = true
	where, err := placeProcess()
	if err != nil {
		delete(process.runs, run)
		if len(process.runs) == 0 {
			return Placement{CPUs: process.orig}, func() error { return nil }, err
		}
		return process.where, func() error { return nil }, err
	}
	process.where = where
	moveThreads(root, where.CPUs, len(process.runs) == 1)
	return where, sync.OnceValue(func() error { return endKeepOff(root, run) }), nil
}

// placeProcess is where the threads go for the runs in progress.
func placeProcess() (Placement, error) {
	var avoid, core cpuset.Set
	for r := range process.runs {
		avoid, core = avoid.Union(r.avoid), core.Union(r.core)
	}
	off, onCore, err := OffCPUs(process.orig, avoid, core)
	return Placement{CPUs: off, OnCore: onCore}, err
}

// moveThreads puts every thread of the process not held by a run's work
// on cpus. The first run remembers the mask of each thread that was there
// when it began; a thread that appears later was born during a run, with
// a mask reduced from its creator's, and gets the process's original mask
// at the end.
func moveThreads(root fsroot.Root, cpus cpuset.Set, first bool) {
	there := map[int]bool{}
	if first {
		for _, tid := range OwnThreads(root) {
			there[tid] = true
		}
	}
	eachThread(root, func(tid int) error {
		m, err := GetAffinity(tid)
		if err != nil || SetAffinity(tid, cpus) != nil {
			return nil // gone, or not ours to move
		}
		if there[tid] {
			process.prev[tid] = m
		}
		return nil
	})
}

// eachThread calls f once for every thread of the process not held by a
// run's work, listing them again until a listing finds none it has not
// seen: a thread that one not yet changed starts meanwhile inherits that
// one's mask, and would otherwise be missed. It returns f's first error.
func eachThread(root fsroot.Root, f func(tid int) error) error {
	var first error
	seen := map[int]bool{}
	for more := true; more; {
		more = false
		for _, tid := range OwnThreads(root) {
			if seen[tid] || process.held[tid] > 0 {
				continue
			}
			seen[tid], more = true, true
			if err := f(tid); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// endKeepOff ends one run's move: the threads go where the remaining runs
// need them, or back to their masks after the last.
func endKeepOff(root fsroot.Root, run *keptOff) error {
	process.Lock()
	defer process.Unlock()
	delete(process.runs, run)
	if len(process.runs) > 0 {
		where, err := placeProcess()
		if err != nil { // cannot happen: fewer CPUs to avoid than before
			return err
		}
		process.where = where
		moveThreads(root, where.CPUs, false)
		return nil
	}
	err := eachThread(root, func(tid int) error {
		m, ok := process.prev[tid]
		if !ok {
			m = process.orig
		}
		if err := SetAffinity(tid, m); err != nil && ThreadAlive(tid) {
			return err
		}
		return nil
	})
	process.prev, process.runs = nil, nil
	return err
}

// HoldThread marks tid as a thread that does a run's work: runs that move
// corepin's threads off their targets leave it where its session put it.
// The returned function ends the hold, after the session has restored the
// thread; while other runs are in progress the thread then joins the
// others off their targets.
func HoldThread(tid int) func() {
	process.Lock()
	defer process.Unlock()
	if process.held == nil {
		process.held = map[int]int{}
	}
	if tid == os.Getpid() && process.held[tid] == 0 {
		if m, err := GetAffinity(tid); err == nil {
			process.mainMask = &m
		}
	}
	process.held[tid]++
	return sync.OnceFunc(func() {
		process.Lock()
		defer process.Unlock()
		if process.held[tid]--; process.held[tid] <= 0 {
			delete(process.held, tid)
			if tid == os.Getpid() {
				process.mainMask = nil
			}
			if len(process.runs) > 0 {
				SetAffinity(tid, process.where.CPUs)
			}
		}
	})
}

// InheritedMask is the mask this process was given: the main thread's, or
// while runs keep corepin's threads off their targets, the main thread's
// before the first of them moved it, or while a session holds the main
// thread itself, its mask before the session. Choosing a run's CPUs by
// the mask of the moment would take another run's move, or the session's
// pin, for a limit the process was set.
func InheritedMask() (cpuset.Set, error) {
	process.Lock()
	defer process.Unlock()
	switch {
	case len(process.runs) > 0:
		return process.orig, nil
	case process.mainMask != nil:
		return *process.mainMask, nil
	}
	return GetAffinity(os.Getpid())
}
