package runner

import (
	"fmt"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/speed"
)

// MaxSpeedReruns is how many times --speed-gate re-runs one run whose
// speed witness read low: a core slowed for longer than that is the
// machine's state, which the run's warnings then say, not bad luck.
const MaxSpeedReruns = 3

// Where the speed probes run (results.RunRecord.SpeedSource).
const (
	SpeedOnWorkThread   = "work thread: the probes run on the work's own thread, on the target, before and after the work"
	SpeedOnPinnedThread = "pinned thread: the probes run on a corepin thread pinned to the target, just before the fork and right after the exit"
)

// witness is the session's calibrated speed probe.
type witness struct {
	probe       speed.Probe
	target      cpuset.Set
	thread      *speed.Thread // the probes' own thread for process runs
	unavailable string        // why there is no probe; "" when there is
}

// calibrateWitness calibrates the probe once, on the probes' own thread
// pinned to the target; stop ends that thread.
func (cfg *Config) calibrateWitness() *witness {
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
	return &results.SpeedWitness{Iterations: w.probe.Iterations, ProbeS: w.probe.Duration.Seconds(),
		CalibrationRate: w.probe.Rate, Threshold: results.SpeedWarn, Unavailable: w.unavailable}
}

func (w *witness) ok() bool { return w != nil && w.unavailable == "" }

// read runs the probe on the calling thread, which is on the target.
func (w *witness) read() *results.SpeedProbe {
	at := time.Now()
	r := w.probe.Read()
	return &results.SpeedProbe{At: at, Rate: r.Rate, WallS: r.WallS, OnCPU: r.OnCPU, CPU: r.CPU}
}

// readPinned runs the probe on the probes' own thread, pinned to the target,
// for a run whose work is another process; nil when the thread could not
// be placed.
func (w *witness) readPinned() *results.SpeedProbe {
	var p *results.SpeedProbe
	if err := w.thread.Do(func() { p = w.read() }); err != nil {
		return nil
	}
	return p
}

// aroundProcess runs start between two pinned probes: the one before
// just ahead of the fork, the one after right after the exit.
func (w *witness) aroundProcess(rec *results.RunRecord, start func()) {
	if !w.ok() {
		start()
		return
	}
	rec.SpeedSource = SpeedOnPinnedThread
	rec.ProbeBefore = w.readPinned()
	start()
	rec.ProbeAfter = w.readPinned()
}

// steal reads the target CPUs' steal ticks; ok is false where /proc/stat
// cannot be read or lacks a target CPU.
func (cfg *Config) steal() (ticks uint64, ok bool) {
	cpus, err := procfs.ReadStat(cfg.Root)
	if err != nil {
		return 0, false
	}
	for _, c := range cfg.Request.Mask().CPUs() {
		t, found := cpus[c]
		if !found {
			return 0, false
		}
		ticks += t.Steal
	}
	return ticks, true
}

// gateReason says why --speed-gate drops a run, "" when it keeps it: its
// witness read below the threshold against the best rate so far.
func gateReason(rec *results.RunRecord, best float64, rerun int) string {
	if rec.Error != "" || !rec.Valid {
		return "" // not a time: nothing to re-run for speed
	}
	rec.SetSpeed(max(best, bestOf(rec)))
	if !rec.Slowed() {
		return ""
	}
	return fmt.Sprintf("%s; dropped by --speed-gate (below %.2f of the best) and re-run (%d of at most %d)",
		rec.SpeedText(), 1-results.SpeedWarn, rerun, MaxSpeedReruns)
}

func bestOf(rec *results.RunRecord) float64 {
	best := 0.0
	for _, p := range []*results.SpeedProbe{rec.ProbeBefore, rec.ProbeAfter} {
		if p != nil {
			best = max(best, p.Rate)
		}
	}
	return best
}

func ticksToSeconds(t uint64) float64 { return (time.Duration(t) * procfs.Tick).Seconds() }
