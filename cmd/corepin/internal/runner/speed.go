package runner

import (
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/bandwidth"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/internal/speed"
	"corepin.dev/corepin/results"
)

// Where the speed probes run (results.RunRecord.SpeedSource).
const (
	SpeedOnWorkThread   = "work thread: the probes run on the work's own thread, on the target, after the work"
	SpeedOnPinnedThread = "pinned thread: the probes run on a corepin thread pinned to the target, after the run's tree was ended and its cgroups removed"
)

// ProbeReads is how many probes are read after each run; the best is the
// reading. Measured beside the runs of a fixed-work command
// (bench/speed-witness.sh), a single probe of a millisecond read below
// 0.9 of its best about twice as often as the best of five, and the
// probes just before the fork or during the exit more often still: the
// kernel's and corepin's own work around them lands on the target.
const ProbeReads = 3

// witness is the session's calibrated speed probe.
type witness struct {
	probe       speed.Probe
	target      cpuset.Set
	thread      *speed.Thread // the probes' own thread for process runs
	unavailable string        // why there is no probe; "" when there is
}

// calibrateWitness calibrates the probe once, on the probes' own thread
// pinned to the target; stop ends that thread.
func calibrateWitness(cfg Config) *witness {
	w := &witness{target: cfg.Request.Mask()}
	th, err := speed.NewThread(w.target)
	if err == nil {
		w.thread = th
		err = th.Do(func() { w.probe = speed.Calibrate(cfg.SpeedProbe) })
	}
	if err != nil {
		w.unavailable = err.Error()
	}
	return w
}

func (w *witness) stop() {
	if w != nil && w.thread != nil {
		w.thread.Stop()
	}
}

// record is the witness for run.json.
func (w *witness) record() *results.SpeedWitness {
	return &results.SpeedWitness{Iterations: w.probe.Iterations, ProbeS: w.probe.Duration.Seconds(), Reads: ProbeReads,
		CalibrationRate: w.probe.Rate, Threshold: judge.SpeedWarn, SteadyBand: judge.SteadyBand, Unavailable: w.unavailable}
}

func (w *witness) ok() bool { return w != nil && w.unavailable == "" }

// read runs the probe ProbeReads times on the calling thread, which is on
// the target, and keeps the best reading.
func (w *witness) read() *results.SpeedProbe {
	var best speed.Reading
	var at time.Time
	for range ProbeReads {
		start := time.Now()
		if r := w.probe.Read(); r.Rate > best.Rate {
			best, at = r, start
		}
	}
	return &results.SpeedProbe{At: at, Rate: best.Rate, WallS: best.WallS, OnCPU: best.OnCPU, CPU: best.CPU}
}

// readPinned runs the probes on the probes' own thread, pinned to the
// target, for a run whose work is another process; nil when the thread
// could not be placed.
func (w *witness) readPinned() *results.SpeedProbe {
	var p *results.SpeedProbe
	if err := w.thread.Do(func() { p = w.read() }); err != nil {
		return nil
	}
	return p
}

// afterProcess reads the probes after a process run: once start (the run,
// its tree ended and its cgroups removed) has returned, off the fork and
// the exit, where the kernel's and corepin's own work lands on the target.
func (w *witness) afterProcess(rec *results.RunRecord, start func()) {
	start()
	if !w.ok() {
		return
	}
	rec.SpeedSource = SpeedOnPinnedThread
	rec.ProbeAfter = w.readPinned()
}

// steal reads the target CPUs' steal ticks; ok is false where /proc/stat
// cannot be read or lacks a target CPU.
func (r *suiteRun) steal() (ticks uint64, ok bool) {
	cpus, err := procfs.ReadStat(r.cfg.Root)
	if err != nil {
		return 0, false
	}
	for _, c := range r.cfg.Request.Mask().CPUs() {
		t, found := cpus[c]
		if !found {
			return 0, false
		}
		ticks += t.Steal
	}
	return ticks, true
}

// throttling reads how long CFS bandwidth control has held back the cpu
// cgroups corepin runs under (the work's, which are made beneath them, or
// which it shares); ok is false where there is no cpu controller to read.
func throttling(root fsroot.Root) (bandwidth.Throttling, bool) {
	t, err := bandwidth.ReadThrottling(root, "self")
	return t, err == nil
}

// recordThrottled keeps, in rec, how long a CPU bandwidth limit held the
// work back between the readings before and after.
func recordThrottled(rec *results.RunRecord, before, after bandwidth.Throttling) {
	d, dir := after.Since(before)
	s := d.Seconds()
	rec.ThrottledS, rec.ThrottledCgroup = &s, dir
}

func ticksToSeconds(t uint64) float64 { return (time.Duration(t) * procfs.Tick).Seconds() }
