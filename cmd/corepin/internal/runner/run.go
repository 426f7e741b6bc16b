package runner

import (
	"context"
	"fmt"
	"os"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/system"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
)

// Run runs the benchmarks and returns the results and their folder. The
// folder is created before any benchmark runs, so that an unwritable
// place fails first. A cancelled context stops the current run, keeps
// what is finished and marks the run interrupted.
//
// A run goes through its steps, each below: plan, open, each job, and
// end. What a step sets up is undone when Run returns, in the reverse
// order (suiteRun.close).
func Run(ctx context.Context, cfg Config) (*results.Run, *results.Folder, error) {
	r, err := plan(cfg)
	if err != nil {
		return nil, nil, err
	}
	defer r.close()
	if err := r.open(ctx); err != nil {
		return nil, nil, err
	}
	for _, j := range r.jobs {
		if !r.do(ctx, j) {
			break
		}
	}
	return r.end()
}

// suiteRun is one Run on its way: its plan, what it opened, the results
// being filled, and what is to be undone at the end.
type suiteRun struct {
	cfg     Config
	words   judge.Words
	benches []bench
	skipped []suite.Skip
	jobs    []job

	tuned   *system.Tuned
	witness *witness
	tracer  *launch.Tracer // who runs on the target, where BPF is allowed
	folder  *results.Folder
	journal *results.Journal
	res     *results.Run

	reruns  *judge.Reruns
	longest longestRun
	offline []judge.Finding // what the target's going offline did to the run
	noted   bool            // what the first run that started could not have is said
	failed  error           // a finished run that could not be recorded
	// undo is what close runs, last first.
	undo []func()
}

// plan checks the config and works out what the run runs, before
// anything is read or changed: the benchmarks and their runs, the suite's
// programs (a benchmark whose program is not installed is skipped), and
// every run in order.
func plan(cfg Config) (*suiteRun, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Request.Validate(); err != nil {
		return nil, err
	}
	if cfg.Isolation == "" {
		cfg.Isolation = Process
	}
	if cfg.Events == nil {
		cfg.Events = noEvents{}
	}
	if cfg.Self == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Self = self
	}
	r := &suiteRun{cfg: cfg, words: judge.Words{Flags: cfg.Flags}}
	var err error
	if r.benches, err = benchmarks(cfg); err != nil {
		return nil, err
	}
	if cfg.Suite != nil {
		if r.skipped, err = cfg.Suite.LookCommands(); err != nil {
			return nil, err
		}
		if r.benches, err = withoutSkipped(r.benches, r.skipped); err != nil {
			return nil, err
		}
	}
	r.jobs = jobs(r.benches, cfg.Shuffle)
	r.longest = make(longestRun, len(r.benches))
	// Re-runs are recorded too: they may add what the planned runs leave
	// of MaxTotalRuns.
	r.reruns = &judge.Reruns{Words: r.words, SpeedGate: cfg.SpeedGate, Left: MaxTotalRuns - len(r.jobs), Limit: MaxTotalRuns}
	return r, nil
}

// open makes what every run needs, in order: the machine's tune, the speed
// witness calibrated on it, the results folder with run.json saying what
// is planned and that it is not finished, the suite's inputs and its
// programs' versions, the journal the runs go to, and the tracer of who
// runs on the target. A folder in which nothing ran is removed again.
func (r *suiteRun) open(ctx context.Context) error {
	if err := r.tune(ctx); err != nil {
		return err
	}
	r.witness = calibrateWitness(r.cfg)
	r.onClose(r.witness.stop)
	host := hostFacts(r.cfg)
	folder, err := results.Create(r.cfg.OutDir, host.Name(), time.Now())
	if err != nil {
		return err
	}
	r.folder = folder
	ran := false
	r.onClose(func() {
		if !ran {
			os.RemoveAll(folder.Path) // nothing ran: leave no folder
		}
	})
	if err := r.prepareSuite(ctx); err != nil {
		return err
	}
	r.res = r.skeleton(host)
	r.systemStart()
	if err := folder.SaveRun(r.res); err != nil {
		return err
	}
	if r.journal, err = folder.OpenJournal(); err != nil {
		return err
	}
	r.onClose(func() { r.journal.Close() })
	ran = true
	r.trace()
	// Disk for the last save of run.json, should the disk fill up
	// meanwhile: the finished runs then still reach it.
	folder.Reserve(results.ReserveFor(len(r.jobs)))
	r.cfg.Events.Start(len(r.jobs))
	return nil
}

// trace starts one tracer for the whole run: loading it costs tens of
// milliseconds, a snapshot around each run well under one. Where corepin
// may not trace (unprivileged, no BTF), runs have no names.
func (r *suiteRun) trace() {
	if tr, err := launch.StartTracer(r.cfg.Request.Mask()); err == nil {
		r.tracer = tr
		r.onClose(func() { tr.Stop() })
	}
}

// do runs one job, again while the judge drops it, and records it; false
// ends the run: interrupted, stopped early, or not recorded.
func (r *suiteRun) do(ctx context.Context, j job) bool {
	if ctx.Err() != nil {
		r.res.Interrupted = true
		return false
	}
	b := &r.benches[j.bench]
	b.expectS = expectedSeconds(*b, r.longest[j.bench])
	if !r.awaitTarget(ctx, j.name(b.name)) {
		return false
	}
	rb := &r.res.Benchmarks[j.bench]
	r.started(b.name, j)
	rec := r.once(ctx, *b, j)
	if !r.noted && rec.Scheduling != nil && rec.Scheduling.Child.Started {
		r.noted = true
		r.noteFirst(rec.Scheduling)
	}
	for ctx.Err() == nil {
		why := r.reruns.Why(&rec, rb.SpeedReference(), &j.attempt)
		if why == "" {
			break
		}
		rec.Dropped = why
		if !r.append(b.name, &rec) {
			return false
		}
		rb.DroppedRuns = append(rb.DroppedRuns, rec)
		j.attempt.Reruns++
		r.note(fmt.Sprintf("%s run %d: %s", termsafe.Text(b.name), j.index, termsafe.Text(why))) // names of others' threads are anyone's
		r.started(b.name, j)
		rec = r.once(ctx, *b, j)
	}
	if ctx.Err() != nil && (rec.Error != "" || !rec.Valid) {
		// The run was cut short by a signal: it is not a result.
		r.res.Interrupted = true
		return false
	}
	if !r.append(b.name, &rec) {
		return false
	}
	rb.Runs = append(rb.Runs, rec)
	r.longest.add(j.bench, &rec)
	r.cfg.Events.RunDone(b.name, &rec)
	return true
}

// started tells the events a run of bench starts.
func (r *suiteRun) started(bench string, j job) {
	rb := &r.res.Benchmarks[j.bench]
	of := rb.PlannedRuns
	if j.warmup {
		of = rb.PlannedWarmups
	}
	r.cfg.Events.RunStarted(bench, j.index, of, j.warmup)
}

// append records a finished run in the journal; a run that cannot be
// recorded (a full disk) is not a result, and stops the run.
func (r *suiteRun) append(bench string, rec *results.RunRecord) bool {
	if err := r.journal.Append(bench, rec); err != nil {
		r.failed = err
		r.res.StoppedEarly = fmt.Sprintf("a finished run could not be recorded (%v), so the run stopped; the runs recorded before it are kept", err)
		return false
	}
	return true
}

// end settles what completed and judges the run's end; puts the machine
// back, recording how; and saves the results. A folder whose disk cannot
// take run.json even without its reserve is kept elsewhere, in a folder
// that says so.
func (r *suiteRun) end() (*results.Run, *results.Folder, error) {
	r.cfg.Events.Finish()
	r.finish()
	lost := r.systemEnd()
	r.words.End(r.res, judge.Ending{Offline: r.offline, Unversioned: unversioned(r.benches), Lost: lost})
	r.untune()
	if err := r.folder.Save(r.res); err != nil {
		if kept, kerr := r.folder.KeepElsewhere(r.res, err); kerr == nil {
			return r.res, kept, fmt.Errorf("%w; the finished runs are kept in %s", err, kept.Path)
		}
		return r.res, r.folder, err
	}
	return r.res, r.folder, r.failed
}

// finish settles what completed (statistics, score, the judge's
// findings), and closes the run's record.
func (r *suiteRun) finish() {
	res := r.res
	now := time.Now()
	res.Finished = &now
	res.State = results.StateFinished
	if res.Interrupted {
		res.State = results.StateInterrupted
	}
	res.Writer = nil
	res.Warnings = []results.Warning{}
	r.words.Settle(res)
	if res.StoppedEarly != "" {
		res.Score = nil // a score of some of the runs describes no machine
	}
}

// note tells the events a passing note, where they show one.
func (r *suiteRun) note(s string) {
	if n, ok := r.cfg.Events.(Noter); ok {
		n.Note(s)
	}
}

// onClose adds f to what close undoes.
func (r *suiteRun) onClose(f func()) { r.undo = append(r.undo, f) }

// close undoes what the steps set up, last first.
func (r *suiteRun) close() {
	for i := len(r.undo) - 1; i >= 0; i-- {
		r.undo[i]()
	}
}
