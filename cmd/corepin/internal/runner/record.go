package runner

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// skeleton is run.json as the run opens: where and how it runs, what is
// planned, and that it is running (its writer is this process).
func (r *suiteRun) skeleton(host results.Host) *results.Run {
	cfg := r.cfg
	run := &results.Run{
		Schema: results.Schema, Started: time.Now(), Host: host,
		Target: results.Target{Spec: cfg.Target.Spec, Mode: evidence.Mode(cfg.Request.ModeOrDefault()), ExactCPU: cfg.Request.CPU,
			SoftCPUs: cfg.Request.Group, Node: cfg.Target.Node, Why: cfg.Target.Why},
		// The runs recorded are those used: the command line's, else the
		// suite's, else the default (a benchmark's own runs are in its
		// record).
		Options: results.Options{Quick: cfg.Quick, Runs: runsOf(cfg, 0), Warmup: warmupsOf(cfg), Isolation: cfg.Isolation,
			Shuffle: cfg.Shuffle, TelemetryPeriod: telemetryPeriod(cfg).Seconds(), Ladder: cfg.Request.Ladder.Name(),
			Realtime: cfg.Request.AllowRealtime, MaxOthers: maxOthers(cfg), AllowSharing: cfg.AllowSharing,
			RealtimeFirst: cfg.RealtimeFirst, Launcher: cfg.Launcher, SpeedGate: cfg.SpeedGate},
		Benchmarks: []results.Benchmark{}, Warnings: []results.Warning{},
		State: results.StateRunning, Writer: results.ThisWriter(),
	}
	if cfg.Suite != nil {
		run.Options.Suite, run.Options.SuiteSHA256 = cfg.Suite.Path, cfg.Suite.SHA256
	}
	if cfg.SpeedGate {
		run.Options.SpeedGateReruns = judge.MaxSpeedReruns
	}
	if r.witness != nil {
		run.Speed = r.witness.record()
	}
	run.Topology = topologyEvidence(cfg.Topology)
	for _, sk := range r.skipped {
		run.Skipped = append(run.Skipped, results.Skip{Name: sk.Name, Why: sk.Why})
	}
	for _, b := range r.benches {
		rb := results.Benchmark{Name: b.name, Warnings: []results.Warning{}}
		if w := b.workload; w != nil {
			rb.Kind, rb.Description, rb.ReferenceS = "builtin", w.Description, w.Reference[size(cfg)]
		} else {
			rb.Kind, rb.ReferenceS = "command", b.command.ReferenceSeconds
			rb.Command = append([]string{b.command.Cmd}, b.command.Args...)
			rb.Description, rb.Version, rb.Measure = b.command.Description, b.version, measureOf(b.command.Metric)
		}
		rb.PlannedRuns, rb.PlannedWarmups = b.runs, b.warmups
		if r.witness.ok() {
			rb.SpeedBestRate = r.witness.probe.Rate
		}
		rb.Runs = []results.RunRecord{}
		run.Benchmarks = append(run.Benchmarks, rb)
	}
	return run
}

func hostFacts(cfg Config) results.Host {
	h := results.Host{GoVersion: runtime.Version(), Corepin: cfg.Version}
	h.Hostname, _ = os.Hostname()
	if device := os.Getenv(results.DeviceEnv); device != "" { // started by corepin --on
		h.AddDevice(device)
	}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		h.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	if cfg.Topology != nil {
		h.CPUModel = cfg.Topology.Model
	}
	read := func(name string) string {
		data, err := cfg.Root.ReadFile(fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpufreq/%s", cfg.Request.CPU, name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(data))
	}
	h.Governor, h.Driver = read("scaling_governor"), read("scaling_driver")
	return h
}

// maxOthers is the share of the target others may take that the run
// judges by.
func maxOthers(cfg Config) float64 {
	if cfg.MaxOthers <= 0 {
		return judge.DefaultMaxOthers
	}
	return cfg.MaxOthers
}
