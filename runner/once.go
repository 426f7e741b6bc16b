package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/suite"
	"corepin.dev/corepin/telemetry"
	"corepin.dev/corepin/workloads"
)

// runOnce runs one job with the sampler around it.
func (cfg *Config) runOnce(ctx context.Context, folder *results.Folder, b bench, j job) results.RunRecord {
	rec := results.RunRecord{Index: j.index, Warmup: j.warmup, Started: time.Now(), Checks: []suite.Outcome{}}
	target := cfg.Request.Mask()
	sampler, err := telemetry.Start(ctx, telemetry.Options{Period: cfg.telemetryPeriod(), Avoid: target, Root: cfg.Root})
	if err != nil {
		rec.Error = "telemetry: " + err.Error()
		return rec
	}
	sampler.Mark("start")
	switch {
	case b.workload != nil && cfg.Isolation == Thread:
		cfg.runThread(ctx, b, &rec)
	case b.workload != nil:
		cfg.runWorkloadProcess(ctx, b, &rec)
	default:
		cfg.runCommand(ctx, folder, b, &rec)
	}
	sampler.Mark("end")
	series := sampler.Stop()
	rec.Telemetry = summarizeTelemetry(series, target)
	rec.TelemetryCSV = filepath.Join("telemetry", fmt.Sprintf("%s-%d.csv", b.name, j.index))
	if err := folder.WriteFile(rec.TelemetryCSV, series.WriteCSV); err != nil {
		rec.Error = err.Error()
	}
	return rec
}

// runWorkloadProcess starts corepin again as the workload, on target
// through the launch package, with GOMAXPROCS=1 so the Go runtime does not spread the single
// thread's work.
func (cfg *Config) runWorkloadProcess(ctx context.Context, b bench, rec *results.RunRecord) {
	var stdout, stderr bytes.Buffer
	rep, err := launch.Run(ctx, launch.Config{
		Request: cfg.Request, Self: cfg.Self,
		Args:   []string{cfg.Self, WorkloadCommand, b.name, "--size", string(cfg.size())},
		Env:    append(os.Environ(), "GOMAXPROCS=1"),
		Stdout: &stdout, Stderr: &stderr, WatchPeriod: cfg.WatchPeriod,
	})
	if !cfg.record(rec, rep, err, stderr.Bytes()) {
		return
	}
	var res workloads.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		rec.Error = fmt.Sprintf("reading the workload's result: %v (output %q)", err, clip(stdout.String()))
		return
	}
	rec.WallS, rec.Summary, rec.Valid = res.Seconds, res.Summary, res.Valid
	rec.Checks = append(rec.Checks, suite.Outcome{What: "built-in answer check", Passed: res.Valid, Detail: res.Why})
}

// runThread runs a built-in workload on a session thread inside corepin,
// started by launch as every work is: corepin's other threads keep off the
// target while it runs, and the watcher follows the thread.
func (cfg *Config) runThread(ctx context.Context, b bench, rec *results.RunRecord) {
	var res workloads.Result
	var werr error
	rep, err := launch.RunThread(ctx, launch.ThreadConfig{Request: cfg.Request, WatchPeriod: cfg.WatchPeriod, Root: cfg.Root}, func(s *session.Session) error {
		res, werr = b.workload.Run(cfg.size())
		_, oerr := s.Observe()
		return oerr
	})
	rec.Scheduling = rep
	if rep != nil {
		rec.UserS, rec.SysS = rep.Child.UserS, rep.Child.SysS
	}
	switch {
	case err != nil:
		rec.Error = err.Error()
	case werr != nil:
		rec.Error = werr.Error()
	default:
		rec.WallS, rec.Summary, rec.Valid = res.Seconds, res.Summary, res.Valid
		rec.Checks = append(rec.Checks, suite.Outcome{What: "built-in answer check", Passed: res.Valid, Detail: res.Why})
	}
}

// runCommand runs a suite command on target (launch.Run) and checks its
// output.
func (cfg *Config) runCommand(ctx context.Context, folder *results.Folder, b bench, rec *results.RunRecord) {
	c := b.command
	s := cfg.Suite
	dir := s.WorkDir(*c)
	cmdPath := c.Cmd
	if filepath.Base(cmdPath) != cmdPath && !filepath.IsAbs(cmdPath) {
		cmdPath = filepath.Join(dir, cmdPath)
	}
	env := os.Environ()
	for k, v := range c.Env {
		env = append(env, k+"="+v)
	}
	var stdin io.Reader
	if c.Stdin != "" {
		f, err := os.Open(s.Resolve(c.Stdin))
		if err != nil {
			rec.Error = err.Error()
			return
		}
		defer f.Close()
		stdin = f
	}
	timeout := c.Timeout.Duration
	if timeout == 0 {
		timeout = s.Settings.Timeout.Duration
	}
	var stdout, stderr bytes.Buffer
	rep, err := launch.Run(ctx, launch.Config{
		Request: cfg.Request, Self: cfg.Self, Args: append([]string{cmdPath}, c.Args...), Dir: dir, Env: env, Stdin: stdin,
		Stdout: &stdout, Stderr: &stderr, Timeout: timeout, WatchPeriod: cfg.WatchPeriod, Root: cfg.Root,
	})
	rec.StdoutFile = filepath.Join("outputs", fmt.Sprintf("%s-%d.stdout", b.name, rec.Index))
	keepErr := keepOutput(folder, rec.StdoutFile, stdout.Bytes())
	if keepErr != nil {
		rec.StdoutFile = "" // no file to point to
	}
	if !cfg.record(rec, rep, err, stderr.Bytes()) {
		return
	}
	if keepErr != nil {
		// The output is the evidence of the check: a run without it is
		// not a result.
		rec.Error = keepErr.Error()
		return
	}
	rec.WallS = rep.Child.WallS
	rec.Valid = true
	for _, check := range c.Checks {
		o := check.Run(s, stdout.Bytes(), dir)
		rec.Checks = append(rec.Checks, o)
		rec.Valid = rec.Valid && o.Passed
	}
}

// keepOutput writes a command's standard output into the results folder.
func keepOutput(folder *results.Folder, rel string, out []byte) error {
	if err := os.MkdirAll(filepath.Join(folder.Path, filepath.Dir(rel)), 0o755); err != nil {
		return fmt.Errorf("keeping the output: %w", err)
	}
	if err := folder.WriteFile(rel, func(w io.Writer) error { _, err := w.Write(out); return err }); err != nil {
		return fmt.Errorf("keeping the output: %w", err)
	}
	return nil
}

// record keeps the launch report and says whether the command ran to
// a successful end.
func (cfg *Config) record(rec *results.RunRecord, rep *launch.Report, err error, stderr []byte) bool {
	if err != nil {
		rec.Error = err.Error()
		return false
	}
	rec.Scheduling = rep
	rec.UserS, rec.SysS, rec.MaxRSSKB = rep.Child.UserS, rep.Child.SysS, rep.Child.MaxRSSKB
	switch {
	case rep.Refused != "":
		rec.Error = "not run: the scheduling was not accepted: " + rep.Refused
	case rep.ExecError != "":
		rec.Error = "cannot run: " + rep.ExecError
	case rep.Child.TimedOut:
		rec.Error = "timed out"
	case rep.ExitCode() != 0:
		rec.Error = fmt.Sprintf("exit status %d: %s", rep.ExitCode(), clip(string(stderr)))
	default:
		return true
	}
	return false
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
