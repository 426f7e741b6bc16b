package watch

import (
	"os"
	"sync"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/sched"
)

// A watcher lives in the Go runtime of its process: a sample allocates,
// the collector needs its workers, a blocked system call needs a free P.
// Raising the watcher's own thread alone is not enough when the work's
// threads flood the CPUs corepin runs on: the runtime threads it depends
// on are starved with everything else in the process (measured: a
// watcher at fifo:1 among 500 escaped threads at nice -20, the rest of
// the process at nice 0, was stuck for 145 s behind its own collector).
// So while any watcher runs, every thread of the process is raised to
// nice -20, level with the work's best, and the watcher's own thread
// above it to fifo:1 (see keepup.go); all is put back when the last
// watcher stops. The whole process is not made realtime: threads of one
// Go runtime at one FIFO priority do not take turns, and one that spins
// waiting for another on its CPU waits for ever (measured: a run that
// never ended).
var processNice = sched.Attr{Policy: sched.Normal, Nice: -20}

// ownThreads lists corepin's threads; a variable so that a test can make
// one appear between two listings.
var ownThreads = func() []int { return sched.OwnThreads(fsroot.Host) }
var processPriority struct {
	sync.Mutex
	users int
	prev  map[int]sched.Attr // by TID; the main thread's for threads born since
}

// raiseProcess raises every thread of this process to nice -20, counting
// users, and then the calling (watcher) thread to the highest of
// watcherPriorities it may have (or to want); it returns what the
// watcher's thread holds. The watcher's thread is thrown away at the
// end, so it is not put back.
// With whole false (a watcher of corepin's own process, whose threads
// include the work's), only the watcher's thread is raised.
func raiseProcess(want string, whole bool) string {
	if want == PriorityAsIs {
		return "as started"
	}
	if whole {
		raiseAll()
	}
	for _, pr := range watcherPriorities {
		if want != "" && want != pr.name {
			continue
		}
		if err := sched.SetAttr(0, pr.attr); err == nil {
			return pr.name
		}
	}
	return "as started (a higher priority was refused)"
}

// raiseAll puts every thread of the process at processNice, once for all
// the watchers running.
func raiseAll() {
	p := &processPriority
	p.Lock()
	defer p.Unlock()
	p.users++
	if p.users > 1 {
		return
	}
	p.prev = map[int]sched.Attr{}
	tids := ownThreads()
	for _, tid := range tids {
		if a, err := sched.GetAttr(tid); err == nil {
			p.prev[tid] = a
		}
	}
	for _, tid := range tids {
		if a, ok := p.prev[tid]; ok && a.Policy.Realtime() {
			continue // a realtime thread is above nice -20 already
		}
		if err := sched.SetAttr(tid, processNice); err != nil && sched.ThreadAlive(tid) {
			restoreProcess(p.prev) // not allowed: put back what was
			p.prev = nil
			return
		}
	}
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
// main thread's attributes. It lists the threads until a listing finds
// none it has not put back: a thread that a still-raised one starts
// while the list is worked through is born raised, and missed, it would
// stay at nice -20 and pass that on to whatever corepin forks from it.
func restoreProcess(prev map[int]sched.Attr) {
	main, hasMain := prev[os.Getpid()]
	done := map[int]bool{}
	for again := true; again; {
		again = false
		for _, tid := range ownThreads() {
			if done[tid] {
				continue
			}
			done[tid], again = true, true
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
}
