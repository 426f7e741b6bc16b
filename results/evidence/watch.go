package evidence

import (
	"fmt"
	"io"
	"text/tabwriter"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/termsafe"
)

// CPUShareWarn is the share of one CPU the watcher's own thread may use
// before a run says so (KeepUp.TooExpensive).
const CPUShareWarn = 0.02

// Watch is what a watcher saw and did (what watch.Watcher.Stop returns).
type Watch struct {
	PeriodMs int `json:"period_ms"`
	Samples  int `json:"samples"`
	// Reasserts counts requests made again on drifted threads.
	Reasserts int `json:"reasserts"`
	// Migrations counts the threads' moves between CPUs: the kernel's own
	// count (se.nr_migrations) where MigrationsSource is "sched", else
	// the changes of CPU seen between samples ("sampled"), which miss
	// short visits. SampledMigrations is the sampled count either way.
	Migrations        int    `json:"migrations"`
	MigrationsSource  string `json:"migrations_source,omitempty"`
	SampledMigrations int    `json:"sampled_migrations,omitempty"`
	// RunS and WaitS add up the followed threads' time on a CPU and time
	// waiting, runnable, on a run queue (schedstat) while followed;
	// Involuntary their involuntary context switches. Null where the
	// kernel does not keep them.
	RunS        *float64 `json:"run_s,omitempty"`
	WaitS       *float64 `json:"wait_s,omitempty"`
	Involuntary *int64   `json:"involuntary_switches,omitempty"`
	// OnTargetRatio is the share of the followed threads' run time
	// (schedstat's, between samples) after which they were seen on a
	// target CPU; where the kernel keeps no schedstat, the share of
	// running samples in which a thread was on a target CPU; null when
	// nothing ran.
	OnTargetRatio *float64     `json:"on_target_ratio"`
	Threads       []ThreadStat `json:"threads"`
	WatcherCPUs   cpuset.Set   `json:"watcher_cpus"`
	// WatcherCPUSeconds is the CPU time the watcher's own thread used.
	WatcherCPUSeconds float64 `json:"watcher_cpu_s"`
	// KeepUp says whether the watcher kept to its period: a watcher that
	// missed its ticks cannot vouch for the residency it measured.
	KeepUp KeepUp   `json:"keep_up"`
	Errors []string `json:"errors,omitempty"`
	// TargetOffline is set when every target CPU went offline during the
	// run (see Offline).
	TargetOffline *Offline `json:"target_offline,omitempty"`
	// Restored counts the threads put back as they were when the watcher
	// stopped, read back (watch.Options.Restore); NotRestored those that could
	// not be, each with its error in Errors.
	Restored    int `json:"restored,omitempty"`
	NotRestored int `json:"not_restored,omitempty"`
}

// KeepUp is how well the watcher kept to its period.
type KeepUp struct {
	// Priority is what the watcher's thread held: "fifo:1", "other, nice
	// -20" or "as started".
	Priority string `json:"priority"`
	// Expected is the ticks the watched time called for; Late those that
	// came more than half a period late; Missed the ticks that never came.
	Expected     int     `json:"expected_ticks"`
	Late         int     `json:"late_ticks"`
	Missed       int     `json:"missed_ticks"`
	MaxLateMs    float64 `json:"max_late_ms"`
	WatchedS     float64 `json:"watched_s"`
	CPUShare     float64 `json:"cpu_share"` // the watcher thread's CPU time / the watched time
	MissedShare  float64 `json:"missed_share"`
	Unvouched    bool    `json:"unvouched"` // missed more than MissedTicksWarn of its ticks
	TooExpensive bool    `json:"too_expensive"`
}

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

// ThreadStat is one thread's record.
type ThreadStat struct {
	PID        int     `json:"pid"`
	TID        int     `json:"tid"`
	Start      uint64  `json:"start_ticks"`
	Name       string  `json:"name"`
	CPUSeconds float64 `json:"cpu_s"`
	// Running counts the samples in which the thread's CPU time grew;
	// OnTarget those of them in which it was on a target CPU.
	// OnTargetRatio is the share of its run time seen on a target CPU
	// (schedstat's), or where there is none OnTarget over Running.
	Running       int      `json:"running_samples"`
	OnTarget      int      `json:"on_target_samples"`
	OnTargetRatio *float64 `json:"on_target_ratio"`
	Migrations    int      `json:"migrations"`
	// SampledMigrations counts the changes of CPU seen between samples.
	SampledMigrations int `json:"sampled_migrations,omitempty"`
	// RunS and WaitS are schedstat's time on a CPU and time waiting for
	// one while followed; Involuntary the involuntary context switches;
	// absent where the kernel does not keep them.
	RunS        *float64 `json:"run_s,omitempty"`
	WaitS       *float64 `json:"wait_s,omitempty"`
	Involuntary *int64   `json:"involuntary_switches,omitempty"`
	Reasserts   int      `json:"reasserts"`
	LastCPU     int      `json:"last_cpu"`
	Compute     bool     `json:"compute"` // its CPU time grew at least once
}

// WriteText writes the result as corepin watch prints it: one row per
// thread (its share on target only when there was a target), then the
// totals and any errors.
func (res *Watch) WriteText(w io.Writer, target cpuset.Set) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tTID\tNAME\tCPU S\tLAST CPU\tRUNNING\tON TARGET\tMIGRATIONS\tRE-ASSERTED")
	for _, t := range res.Threads {
		on := "-"
		if t.OnTargetRatio != nil && !target.IsEmpty() {
			on = fmt.Sprintf("%.0f%%", 100**t.OnTargetRatio)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.2f\t%d\t%d\t%s\t%d\t%d\n", t.PID, t.TID, termsafe.Text(t.Name), t.CPUSeconds, t.LastCPU, t.Running, on, t.Migrations, t.Reasserts)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d samples every %d ms, %d migrations, %d re-assertions; watcher on CPUs %s\n",
		res.Samples, res.PeriodMs, res.Migrations, res.Reasserts, res.WatcherCPUs)
	if res.Restored > 0 || res.NotRestored > 0 {
		fmt.Fprintf(w, "put back as they were: %d threads", res.Restored)
		if res.NotRestored > 0 {
			fmt.Fprintf(w, "; NOT put back: %d (see the errors)", res.NotRestored)
		}
		fmt.Fprintln(w)
	}
	for _, e := range res.Errors {
		fmt.Fprintln(w, "error:", termsafe.Text(e))
	}
	return nil
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
