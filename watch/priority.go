package watch

import (
	"os"
	"strconv"
	"sync"

	"corepin.dev/corepin/sched"
)

// A watcher lives in the Go runtime of its process: a sample allocates,
// the collector needs its workers, a blocked system call needs a free P.
// Raising the watcher's own thread alone is not enough when the work's
// threads flood the CPUs corepin runs on: the runtime threads it depends
// on are starved with everything else in the process (measured: a
// watcher at fifo:1 among 500 escaped threads at nice -20 was stuck for
// 145 s behind its own collector). So while any watcher runs, every
// thread of the process is raised to the watcher's priority, and put
// back when the last watcher stops. corepin's threads sleep almost all
// the time, and none of them runs on the work's CPUs.
var processPriority struct {
	sync.Mutex
	users int
	held  string
	prev  map[int]sched.Attr // by TID; the main thread's for threads born since
}

// raiseProcess raises every thread of this process to the highest of
// watcherPriorities it may have (or to want), counting users; it returns
// what the threads hold.
func raiseProcess(want string) string {
	p := &processPriority
	p.Lock()
	defer p.Unlock()
	p.users++
	if p.users > 1 {
		return p.held
	}
	p.held = "as started (a higher priority was refused)"
	if want == PriorityAsIs {
		p.held = "as started"
		return p.held
	}
	p.prev = map[int]sched.Attr{}
	tids := ownTasks()
	for _, tid := range tids {
		if a, err := sched.GetAttr(tid); err == nil {
			p.prev[tid] = a
		}
	}
	for _, pr := range watcherPriorities {
		if want != "" && want != pr.name {
			continue
		}
		ok := true
		for _, tid := range tids {
			if err := sched.SetAttr(tid, pr.attr); err != nil && sched.ThreadAlive(tid) {
				ok = false
				break
			}
		}
		if ok {
			p.held = pr.name
			return p.held
		}
	}
	restoreProcess(p.prev) // partly raised: put back what was
	return p.held
}

// lowerProcess is the end of one raiseProcess; the last puts every thread
// back as it was.
func lowerProcess() {
	p := &processPriority
	p.Lock()
	defer p.Unlock()
	p.users--
	if p.users > 0 || p.prev == nil {
		return
	}
	restoreProcess(p.prev)
	p.prev = nil
}

// restoreProcess puts each thread back; threads born since take the
// main thread's attributes.
func restoreProcess(prev map[int]sched.Attr) {
	main, hasMain := prev[os.Getpid()]
	for _, tid := range ownTasks() {
		a, ok := prev[tid]
		if !ok {
			if !hasMain {
				continue
			}
			a = main
		}
		a.Flags &= sched.FlagResetOnFork
		if !a.Policy.Realtime() {
			a.Runtime = 0 // the base slice (see linux-sched-facts §1.7)
		}
		sched.SetAttr(tid, a)
	}
}

func ownTasks() []int {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var tids []int
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids
}
