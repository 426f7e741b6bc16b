package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/telemetry"
	"corepin.dev/corepin/cmd/corepin/internal/workloads"
	"corepin.dev/corepin/internal/inputfile"
	"corepin.dev/corepin/internal/oncpu/timeline"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/session"
)

// once runs one job with the sampler around it, and judges it.
func (r *suiteRun) once(ctx context.Context, b bench, j job) results.RunRecord {
	cfg, folder := r.cfg, r.folder
	rec := results.RunRecord{Index: j.index, Warmup: j.warmup, Started: time.Now(), Checks: []evidence.Outcome{}}
	target := request(cfg, b).Mask()
	sampler, err := telemetry.Start(ctx, telemetry.Options{Period: telemetryPeriod(cfg), Avoid: target, Root: cfg.Root})
	if err != nil {
		rec.Error = "telemetry: " + err.Error()
		return rec
	}
	sampler.Mark("start")
	stealBefore, haveSteal := r.steal()
	throttledBefore, haveThrottled := throttling(cfg.Root)
	var rep *launch.Report
	switch {
	case b.workload != nil && cfg.Isolation == Thread:
		rep = r.runThread(ctx, b, &rec)
	case b.workload != nil:
		rep = r.runWorkloadProcess(ctx, b, &rec)
	default:
		rep = r.runCommand(ctx, b, j, &rec)
	}
	if stealAfter, ok := r.steal(); ok && haveSteal && stealAfter >= stealBefore {
		s := ticksToSeconds(stealAfter - stealBefore)
		rec.StealS = &s
	}
	if throttledAfter, ok := throttling(cfg.Root); ok && haveThrottled {
		recordThrottled(&rec, throttledBefore, throttledAfter)
	}
	sampler.Mark("end")
	series := sampler.Stop()
	rec.Telemetry = summarizeTelemetry(series, target)
	r.judge(&rec, rep)
	rec.Scheduling = schedulingEvidence(rep)
	rec.TelemetryCSV = filepath.Join("telemetry", j.file(b.name)+".csv")
	if err := folder.WriteFile(rec.TelemetryCSV, series.WriteCSV); err != nil {
		rec.Error = strings.TrimPrefix(rec.Error+"; "+err.Error(), "; ") // after the verdict's reason, if any
	}
	keepTimeline(folder, rep, filepath.Join("timeline", j.file(b.name)+".csv"))
	if !rec.Valid && rec.Error == "" && !failedCheck(rec) {
		// Invalid with no check failed and no error of its own: the run
		// did not complete (corepin was stopped in it, or the work ended
		// before saying its result). Its reason is said, never null.
		rec.Error = "the run did not complete"
		if ctx.Err() != nil {
			rec.Error = "corepin was stopped during the run"
		}
	}
	rec.Bound()
	return rec
}

// keepTimeline writes who ran on the target during the run, slice by
// slice, into the results folder as rel, and names the file in the
// report's record of it; where it cannot be written, the record says why.
func keepTimeline(folder *results.Folder, rep *launch.Report, rel string) {
	if rep == nil || rep.Sharing == nil || rep.Sharing.Switches == nil || rep.Sharing.Switches.Error != "" {
		return
	}
	err := os.MkdirAll(filepath.Join(folder.Path, filepath.Dir(rel)), 0o755)
	if err == nil {
		err = folder.WriteFile(rel, func(w io.Writer) error { return timeline.WriteCSV(w, rep.Slices) })
	}
	if err != nil {
		rep.Sharing.Switches.Error = "keeping the slices: " + err.Error()
		return
	}
	rep.Sharing.Switches.File = rel
}

// failedCheck reports whether one of the run's checks failed: its reason
// is there.
func failedCheck(rec results.RunRecord) bool {
	for _, c := range rec.Checks {
		if !c.Passed {
			return true
		}
	}
	return false
}

// runWorkloadProcess starts corepin again as the workload, on target
// through the launch package, with GOMAXPROCS=1 so the Go runtime does not spread the single
// thread's work.
func (r *suiteRun) runWorkloadProcess(ctx context.Context, b bench, rec *results.RunRecord) (rep *launch.Report) {
	cfg := r.cfg
	stdout, stderr := &tail{max: maxStderr}, &tail{max: maxStderr} // a workload prints one small JSON line
	var err error
	r.witness.afterProcess(rec, func() {
		rep, err = launch.Run(ctx, launch.Config{
			Request: request(cfg, b), Self: cfg.Self,
			Args:   append([]string{cfg.Self}, workloads.ChildArgs(b.name, size(cfg))...),
			Env:    append(os.Environ(), "GOMAXPROCS=1"),
			Stdout: stdout, Stderr: stderr, WatchPeriod: cfg.WatchPeriod, Launcher: cfg.Launcher, OnCPU: r.tracer, Guard: cfg.Guard,
		})
	})
	if !record(rec, rep, err, stderr.Bytes()) {
		return
	}
	res, err := workloads.ReadChildResult(stdout.Bytes())
	if err != nil {
		rec.Error = fmt.Sprintf("reading the workload's result: %v (output %q)", err, clip(string(stdout.Bytes())))
		return
	}
	rec.WallS, rec.Summary, rec.Valid = res.Seconds, res.Summary, res.Valid
	rec.Checks = append(rec.Checks, evidence.Outcome{What: "built-in answer check", Passed: res.Valid, Detail: res.Why})
	return rep
}

// runThread runs a built-in workload on a session thread inside corepin,
// started by launch as every work is: corepin's other threads keep off the
// target while it runs, and the watcher follows the thread.
func (r *suiteRun) runThread(ctx context.Context, b bench, rec *results.RunRecord) *launch.Report {
	var res workloads.Result
	var werr error
	w, cfg := r.witness, r.cfg
	rep, err := launch.RunThread(ctx, launch.ThreadConfig{Request: request(cfg, b), WatchPeriod: cfg.WatchPeriod, Root: cfg.Root, OnCPU: r.tracer}, func(s *session.Session) error {
		res, werr = b.workload.Run(size(cfg))
		// The probes run on the work's own thread, on target and at the
		// work's scheduling, just outside the workload's timing.
		if w.ok() {
			rec.SpeedSource, rec.ProbeAfter = SpeedOnWorkThread, w.read()
		}
		_, oerr := s.Observe()
		return oerr
	})
	if rep != nil {
		rec.UserS, rec.SysS = rep.Child.UserS, rep.Child.SysS
	}
	if errors.Is(err, session.ErrRestoreFailed) {
		// The thread could not be put back (a raised nice value, without
		// the privilege to lower it again), so the session destroyed it:
		// nothing is left changed. The measurement stands and the
		// warnings say what happened.
		err = nil
	}
	switch {
	case err != nil:
		rec.Error = err.Error()
	case werr != nil:
		rec.Error = werr.Error()
	default:
		rec.WallS, rec.Summary, rec.Valid = res.Seconds, res.Summary, res.Valid
		rec.Checks = append(rec.Checks, evidence.Outcome{What: "built-in answer check", Passed: res.Valid, Detail: res.Why})
	}
	return rep
}

// runCommand runs a suite command on target (launch.Run) and checks its
// output.
func (r *suiteRun) runCommand(ctx context.Context, b bench, j job, rec *results.RunRecord) (rep *launch.Report) {
	cfg, c, s := r.cfg, b.command, r.cfg.Suite
	var stdin io.Reader
	if c.Stdin != "" {
		f, err := inputfile.Open(s.Resolve(c.Stdin)) // a FIFO must not hang the run
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
	o, ok := r.outputs(b, j, rec)
	if !ok {
		return
	}
	defer o.close()
	var err error
	r.witness.afterProcess(rec, func() {
		rep, err = launch.Run(ctx, launch.Config{
			Request: request(cfg, b), Self: cfg.Self, Args: append([]string{s.CommandPath(*c)}, c.Args...), Dir: o.Dir, Env: s.Env(*c), Stdin: stdin,
			Stdout: o.stdout, Stderr: io.MultiWriter(o.stderr, o.tail), Timeout: timeout, WatchPeriod: cfg.WatchPeriod, Root: cfg.Root, Launcher: cfg.Launcher, OnCPU: r.tracer, Guard: cfg.Guard,
		})
	})
	if rep != nil {
		// The command is the benchmark's, written once in run.json: a
		// copy in every run's record would grow the record, the journal
		// and the memory holding them with the suite.
		rep.Command = nil
	}
	if !record(rec, rep, err, o.tail.Bytes()) {
		return
	}
	if err := o.close(); err != nil {
		// The output is the evidence of the check: a run without it is
		// not a result.
		rec.Error = "keeping the output: " + err.Error()
		return
	}
	rec.WallS = rep.Child.WallS
	r.check(b, j, o.Output, rec)
	return rep
}

// outputs are where a command's output goes: straight into the results
// folder, so that corepin's memory does not grow with it. The checks read
// it back as a stream; of standard error the end is kept in memory too
// (tail), for the message of a failure.
type outputs struct {
	suite.Output
	stdout, stderr *os.File
	tail           *tail
	closed         bool
}

// outputs makes the files of a run's output, and names them in its
// record; false, with the record's error, where they cannot be made.
func (r *suiteRun) outputs(b bench, j job, rec *results.RunRecord) (*outputs, bool) {
	rec.StdoutFile = filepath.Join("outputs", j.file(b.name)+".stdout")
	rec.StderrFile = filepath.Join("outputs", j.file(b.name)+".stderr")
	o := &outputs{Output: suite.Output{Stdout: filepath.Join(r.folder.Path, rec.StdoutFile), Stderr: filepath.Join(r.folder.Path, rec.StderrFile),
		Dir: r.cfg.Suite.WorkDir(*b.command)}, tail: &tail{max: maxStderr}}
	fail := func(err error, kept string) (*outputs, bool) {
		o.close()
		rec.Error, rec.StdoutFile, rec.StderrFile = "keeping the output: "+err.Error(), kept, ""
		return nil, false
	}
	if err := os.MkdirAll(filepath.Dir(o.Stdout), 0o755); err != nil {
		return fail(err, "")
	}
	var err error
	if o.stdout, err = os.Create(o.Stdout); err != nil {
		return fail(err, "")
	}
	if o.stderr, err = os.Create(o.Stderr); err != nil {
		return fail(err, rec.StdoutFile) // its standard output's file is there
	}
	return o, true
}

// close closes the output files once, and says whether all they hold
// reached them.
func (o *outputs) close() error {
	if o.closed {
		return nil
	}
	o.closed = true
	var errs []error
	for _, f := range []*os.File{o.stdout, o.stderr} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(errs...)
}

// check applies a command's checks to its output and reads its metric.
func (r *suiteRun) check(b bench, j job, out suite.Output, rec *results.RunRecord) {
	rec.Valid = true
	for _, o := range b.checker.Check(out) {
		rec.Checks = append(rec.Checks, o)
		rec.Valid = rec.Valid && o.Passed
	}
	m := b.command.Metric
	if m == nil {
		return
	}
	v, err := b.checker.Value(out)
	if err != nil {
		rec.Checks = append(rec.Checks, evidence.Outcome{What: "the metric " + m.Name, Detail: evidence.Clip(err.Error(), suite.MaxOutcomeText)})
		rec.Valid = false
	} else {
		rec.Value = &v
	}
	if m.Geekbench != "" {
		keepExport(r.folder, rec, j.file(b.name), out, m.File)
	}
}

// keepExport keeps the Geekbench export a run wrote beside its output,
// byte for byte with its hash, as corepin import keeps one: the run's
// score then carries the run's read-back and curves, and its workloads'
// scores stay in the file.
func keepExport(folder *results.Folder, rec *results.RunRecord, name string, out suite.Output, file string) {
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(out.Dir, file)
	}
	data, src, err := results.ReadSource(results.KindGeekbench, path)
	if err == nil {
		src.File = filepath.Join("outputs", name+"."+filepath.Base(file))
		err = folder.WriteFile(src.File, func(w io.Writer) error { _, err := w.Write(data); return err })
	}
	if err != nil {
		// The export is the evidence of the score, as the output is of
		// a check: a run without it is not a result.
		rec.Error, rec.Valid = "keeping the Geekbench export: "+err.Error(), false
		return
	}
	rec.Source = &src
}

// maxStderr is how much of a command's standard error is kept: its end,
// where the reason of a failure usually is.
const maxStderr = 64 << 10

// tail keeps the last max bytes written to it.
type tail struct {
	max  int
	buf  []byte
	lost bool
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.buf, t.lost = append(t.buf[:0], p[len(p)-t.max:]...), true
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf, t.lost = append(t.buf[:0], t.buf[over:]...), true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// Bytes is what was kept.
func (t *tail) Bytes() []byte { return t.buf }

// record keeps the command's resource use and says whether it ran to a
// successful end.
func record(rec *results.RunRecord, rep *launch.Report, err error, stderr []byte) bool {
	if err != nil {
		rec.Error = err.Error()
		return false
	}
	rec.UserS, rec.SysS, rec.MaxRSSKB = rep.Child.UserS, rep.Child.SysS, rep.Child.MaxRSSKB
	switch {
	case rep.NoLongerHeld() != "":
		// The target went away under the run (exit status 124 is
		// corepin's for that, not the command's).
		rec.Error = "the target was no longer held: " + rep.NoLongerHeld() + commandEnd(rep)
	case rep.Refused != "":
		rec.Error = "not run: the scheduling was not accepted: " + rep.Refused
	case rep.ExecError != "":
		rec.Error = "cannot run: " + rep.ExecError
	case rep.Child.TimedOut && rep.Child.Signal != nil:
		rec.Error = "timed out: ended by " + *rep.Child.Signal
	case rep.Child.TimedOut:
		rec.Error = "timed out"
	case rep.Child.Signal != nil:
		rec.Error = fmt.Sprintf("killed by %s: %s", *rep.Child.Signal, clip(string(stderr)))
	case rep.ExitCode() != 0:
		rec.Error = fmt.Sprintf("exit status %d: %s", rep.ExitCode(), clip(string(stderr)))
	default:
		return true
	}
	return false
}

// commandEnd says how the command itself ended, for a run whose target
// was lost under it.
func commandEnd(rep *launch.Report) string {
	switch c := rep.Child; {
	case c.ExitCode != nil:
		return fmt.Sprintf(" (the command itself exited %d)", *c.ExitCode)
	case c.Signal != nil:
		return " (the command itself was ended by " + *c.Signal + ")"
	}
	return ""
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
