package watch

import (
	"strings"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
)

func residency(running, onTarget int) evidence.Residency {
	r := evidence.Residency{Running: running, OnTarget: onTarget}
	if running > 0 {
		ratio := float64(onTarget) / float64(running)
		r.Ratio = &ratio
	}
	return r
}

// onlineCPUs reads the machine's online list under the watcher's root; ok
// is false when it cannot be read (a fixture without sys/).
func (w *Watcher) onlineCPUs() (cpuset.Set, bool) {
	data, err := w.opts.Root.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return cpuset.Set{}, false
	}
	s, err := cpuset.Parse(strings.TrimSpace(string(data)))
	return s, err == nil
}

// targetGone reports whether no target CPU is online now.
func (w *Watcher) targetGone() bool {
	online, ok := w.onlineCPUs()
	return ok && !w.opts.Mask.IsEmpty() && online.Intersect(w.opts.Mask).IsEmpty()
}

// checkOnline notes, at each sample, when the target went offline and
// when it came back. now is the sample's time in clock ticks since boot.
func (w *Watcher) checkOnline(now uint64) {
	if w.opts.Mask.IsEmpty() {
		return
	}
	online, ok := w.onlineCPUs()
	if !ok {
		return
	}
	gone := online.Intersect(w.opts.Mask).IsEmpty()
	at := w.secondsSinceStart(now)
	switch {
	case gone && w.offline == nil:
		running, onTarget := w.totals()
		w.offline = &evidence.Offline{CPUs: w.opts.Mask, AtS: at, Seen: online, Before: residency(running, onTarget)}
	case !gone && w.offline != nil && w.offline.OnlineAgainS == nil:
		w.offline.OnlineAgainS = &at
	}
}

func (w *Watcher) secondsSinceStart(now uint64) float64 {
	if w.firstTicks == 0 || now < w.firstTicks {
		return 0
	}
	return float64(now-w.firstTicks) / procfs.UserHZ
}

// totals sums the running and on-target samples of every thread so far.
func (w *Watcher) totals() (running, onTarget int) {
	for _, t := range w.threads {
		running += t.Running
		onTarget += t.OnTarget
	}
	return running, onTarget
}

// offlineResult completes the event with the samples after it.
func (w *Watcher) offlineResult() *evidence.Offline {
	if w.offline == nil {
		return nil
	}
	o := *w.offline
	running, onTarget := w.totals()
	o.After = residency(running-o.Before.Running, onTarget-o.Before.OnTarget)
	return &o
}

// ReadOnce looks at the process once, without a watcher thread: where its
// threads are and whether the target is still online. corepin exec with
// --watch 0 calls it when the command has ended (before it is reaped), so
// that even an unwatched run says when its target went away.
func ReadOnce(opts Options) evidence.Watch {
	opts.Maintain = false
	w := newWatcher(opts)
	w.res.Threads = []evidence.ThreadStat{}
	w.sample()
	w.closeAll() // the files sample kept open for the next sample
	if w.offline != nil {
		w.offline.AtEnd = true
	}
	return w.result()
}
