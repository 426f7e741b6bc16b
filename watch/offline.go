package watch

import (
	"fmt"
	"strings"

	"corepin.dev/corepin/cpuset"
)

// Offline records that the target went offline during the run: hot-unplug
// (or a thermal or power daemon) took every target CPU away, the kernel
// widened the threads' masks ("no longer affine to cpuN") and a mask naming
// only offline CPUs can no longer be set (EINVAL). From then on the work
// ran elsewhere, and the watcher stops re-asserting the mask.
type Offline struct {
	CPUs cpuset.Set `json:"cpus"` // the target CPUs, all offline
	// AtS is when the watcher saw it, in seconds after its first sample
	// (from /proc/uptime); AtEnd says the only look was the one at the end.
	AtS   float64    `json:"at_s"`
	AtEnd bool       `json:"at_end,omitempty"`
	Seen  cpuset.Set `json:"online_then"` // the online list at that moment
	// OnlineAgainS is when a target CPU was online again, if it came back
	// before the end; the mask is not put back then.
	OnlineAgainS *float64 `json:"online_again_s,omitempty"`
	// Before and After split the running samples at the event.
	Before Residency `json:"before"`
	After  Residency `json:"after"`
}

// Residency is how much of the running samples were on the target.
type Residency struct {
	Running  int      `json:"running_samples"`
	OnTarget int      `json:"on_target_samples"`
	Ratio    *float64 `json:"on_target_ratio"`
}

func residency(running, onTarget int) Residency {
	r := Residency{Running: running, OnTarget: onTarget}
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
		w.offline = &Offline{CPUs: w.opts.Mask, AtS: at, Seen: online, Before: residency(running, onTarget)}
	case !gone && w.offline != nil && w.offline.OnlineAgainS == nil:
		w.offline.OnlineAgainS = &at
	}
}

func (w *Watcher) secondsSinceStart(now uint64) float64 {
	if w.firstTicks == 0 || now < w.firstTicks {
		return 0
	}
	return float64(now-w.firstTicks) / clockTick
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
func (w *Watcher) offlineResult() *Offline {
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
func ReadOnce(opts Options) Result {
	opts.Maintain = false
	w := newWatcher(opts)
	w.res.Threads = []ThreadStat{}
	w.sample()
	w.closeAll() // the files sample kept open for the next sample
	if w.offline != nil {
		w.offline.AtEnd = true
	}
	return w.result()
}

// String says what happened in one sentence, with the residency:
// "CPU 3 went offline at 1.2 s; the work ran elsewhere from then on (on
// target 100.0% of 10 running samples before, 0.0% of 23 after; CPU 3 was
// online again at 3.2 s, the mask was not put back)".
func (o *Offline) String() string {
	if o.AtEnd {
		return fmt.Sprintf("CPU %s was offline when the command ended (read back once at the end, the watcher being off); the work ran elsewhere from some moment on", o.CPUs)
	}
	s := fmt.Sprintf("CPU %s went offline at %.1f s; the work ran elsewhere from then on (on target %s before, %s after",
		o.CPUs, o.AtS, o.Before, o.After)
	if o.OnlineAgainS != nil {
		s += fmt.Sprintf("; CPU %s was online again at %.1f s, the mask was not put back", o.CPUs, *o.OnlineAgainS)
	}
	return s + ")"
}

func (r Residency) String() string {
	if r.Ratio == nil {
		return "no running samples"
	}
	return fmt.Sprintf("%.1f%% of %d running samples", 100**r.Ratio, r.Running)
}
