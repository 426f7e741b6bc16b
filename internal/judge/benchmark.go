package judge

import "corepin.dev/corepin/results"

// Settle settles a run of benchmarks (results.Run.Settle: statistics and
// score) and judges each benchmark (Benchmark).
func (w Words) Settle(run *results.Run) {
	run.Settle()
	for i := range run.Benchmarks {
		w.Benchmark(&run.Benchmarks[i])
	}
}

// Benchmark judges a summarised benchmark: each run's speed against its
// runs, then what its statistics and each counted run's record say, kept
// as its warnings, with each run's own findings (the verdict on its
// report, its re-runs) where they belong.
func (w Words) Benchmark(b *results.Benchmark) {
	ref := b.SpeedReference()
	for i := range b.Runs {
		w.JudgeSpeed(&b.Runs[i], ref)
	}
	for i := range b.DroppedRuns {
		b.DroppedRuns[i].SlowedBy = "" // it keeps the reason it was dropped for
	}
	f := &facts{bench: b}
	out := w.Warnings(f.judge(onBench))
	for i := range b.Runs {
		r := &b.Runs[i]
		if r.Warmup {
			continue
		}
		f.rec = r
		out = append(out, w.ofRun(r.Index, f.judge(onRecord))...)
		for _, own := range r.Warnings {
			own.Run = r.Index
			out = append(out, own)
		}
		out = append(out, w.ofRun(r.Index, f.judge(onEvidence))...)
	}
	b.Warnings = dedupe(out)
}

// ofRun are the findings as warnings about run i.
func (w Words) ofRun(i int, fs []Finding) []results.Warning {
	out := w.Warnings(fs)
	for k := range out {
		out[k].Run = i
	}
	return out
}

// counted are the benchmark's runs in its statistics, in order, with the
// figure each is counted by.
func counted(b *results.Benchmark) (runs []results.RunRecord, times []float64) {
	for _, i := range b.Included {
		runs, times = append(runs, b.Runs[i]), append(times, b.Runs[i].WallS)
	}
	return runs, times
}

// notFigures says of each counted run whose figure is not one that it is
// left out of the statistics, and the benchmark is invalid.
func notFigures(f *facts) []Finding {
	b := f.bench
	m, _ := b.Figures()
	var out []Finding
	for _, r := range b.Runs {
		if r.Warmup || r.Error != "" {
			continue
		}
		if p, ok := r.NotAFigure(m); ok {
			fd := find(results.KindNotATime, Invalid, nil, notAFigure(p))
			fd.Run = r.Index
			out = append(out, fd)
		}
	}
	return out
}

// unfinished says why a benchmark is invalid: runs that did not complete,
// or counted runs that failed (a run whose figure is not one says so
// itself).
func unfinished(f *facts) []Finding {
	b := f.bench
	switch {
	case b.CompletedRuns < b.PlannedRuns:
		return []Finding{find(results.KindUnfinished, Invalid, nil, unfinishedRuns{completed: b.CompletedRuns, planned: b.PlannedRuns})}
	case !b.Valid && !onlyNotFigures(b):
		return []Finding{find(results.KindInvalidRuns, Invalid, nil, invalidRuns{why: b.WhyInvalid()})}
	}
	return nil
}

// onlyNotFigures reports whether every counted run is valid and some
// run's figure is not one: that alone made the benchmark invalid.
func onlyNotFigures(b *results.Benchmark) bool {
	m, _ := b.Figures()
	some := false
	for _, r := range b.Runs {
		if r.Warmup {
			continue
		}
		if !r.Valid {
			return false
		}
		_, bad := r.NotAFigure(m)
		some = some || (r.Error == "" && bad)
	}
	return some
}

// spread says a coefficient of variation above SpreadWarn.
func spread(f *facts) []Finding {
	if _, fig := f.bench.Figures(); fig.N > 1 && fig.CV > SpreadWarn {
		return []Finding{find(results.KindSpread, Warn, ptr(fig.CV), spreadOf{cv: fig.CV, most: SpreadWarn})}
	}
	return nil
}

// firstRun says a first counted run slower than the median by more than
// FirstRunWarn, and by what where it was slowed.
func firstRun(f *facts) []Finding {
	b := f.bench
	runs, times := counted(b)
	if len(times) <= 2 || times[0] <= b.MedianS*(1+FirstRunWarn) {
		return nil
	}
	return []Finding{find(results.KindFirstRun, Warn, nil, slowFirst{longer: 100 * (times[0]/b.MedianS - 1), slowedBy: runs[0].SlowedBy})}
}

// outliers names the outlier runs, and which of the slow ones were called
// slowed.
func outliers(f *facts) []Finding {
	b := f.bench
	if len(b.Outliers) == 0 {
		return nil
	}
	p := outlierRuns{runs: b.Outliers}
	for _, i := range b.Outliers {
		r := b.Runs[i]
		if v, _ := r.OwnSpeed(); r.Slowed() && r.WallS > b.MedianS {
			p.slowed, p.speeds = append(p.slowed, r.Index), append(p.speeds, v)
		}
	}
	return []Finding{find(results.KindOutliers, Warn, nil, p)}
}

// dropped counts the benchmark's dropped runs by why they were dropped:
// the speed gate drops runs that completed, valid; a run is dropped
// invalid only when its target CPU was shared. The runs the statistics
// are of are said once, in the first of the two.
func dropped(f *facts) []Finding {
	b := f.bench
	var slow, shared int
	for _, r := range b.DroppedRuns {
		if r.Valid {
			slow++
		} else {
			shared++
		}
	}
	of := droppedRuns{included: b.Included, first: true}
	var out []Finding
	if slow > 0 {
		p := of
		p.n = slow
		out = append(out, find(results.KindSpeedGate, Rerun, ptr(float64(slow)), p))
		of.first = false
	}
	if shared > 0 {
		p := of
		p.n, p.shared = shared, true
		out = append(out, find(results.KindSharedRerun, Rerun, ptr(float64(shared)), p))
	}
	return out
}

// slowed says a counted run that was called slowed, and by what.
func slowed(f *facts) []Finding {
	if !f.rec.Slowed() {
		return nil
	}
	v, _ := f.rec.OwnSpeed()
	return []Finding{find(results.KindSpeed, Warn, ptr(v), said{f.rec.SpeedText()})}
}

// frequency says a target frequency that varied more than FreqWarn
// within a run.
func frequency(f *facts) []Finding {
	t := f.rec.Telemetry
	if t.FreqMinMHz == nil || t.FreqMaxMHz == nil || *t.FreqMaxMHz <= 0 || (*t.FreqMaxMHz-*t.FreqMinMHz) / *t.FreqMaxMHz <= FreqWarn {
		return nil
	}
	return []Finding{find(results.KindFrequency, Warn, nil, varied{min: *t.FreqMinMHz, max: *t.FreqMaxMHz})}
}

// telemetryNotes passes the sampler's notes on.
func telemetryNotes(f *facts) []Finding {
	var out []Finding
	for _, n := range f.rec.Telemetry.Notes {
		out = append(out, find(results.KindTelemetry, Note, nil, sampler{n}))
	}
	return out
}

// watcher passes the watcher's errors on, and says where it fell short.
func watcher(f *facts) []Finding {
	sch := f.rec.Scheduling
	if sch == nil || sch.Watch == nil {
		return nil
	}
	var out []Finding
	for _, e := range sch.Watch.Errors {
		out = append(out, find(results.KindWatcher, Warn, nil, watcherError{e}))
	}
	return append(out, keptUp(sch)...)
}

// residency says work that was off the target for more than a hundredth
// of its running samples.
func residency(f *facts) []Finding {
	sch := f.rec.Scheduling
	if sch == nil || sch.Watch == nil || sch.Watch.OnTargetRatio == nil || *sch.Watch.OnTargetRatio >= ResidencyWarn {
		return nil
	}
	return []Finding{find(results.KindResidency, Warn, nil, offTarget{ratio: *sch.Watch.OnTargetRatio})}
}

// ladder says when the ladder settled on a step below the first one that
// was tried (skipped steps, such as realtime when not allowed, do not
// count as asked), unless every step above failed because the kernel
// lacks what it asks: nothing a person can do on this machine, which the
// summary's scheduling line and caps say, not a warning on every run.
func ladder(f *facts) []Finding {
	sch := f.rec.Scheduling
	if sch == nil || sch.Ladder.AboveUnsupported() {
		return nil
	}
	l := sch.Ladder
	first := 0
	for _, st := range l.Steps {
		if st.Skipped == "" {
			first = st.Step
			break
		}
	}
	if first == 0 || (l.AcceptedStep != 0 && l.AcceptedStep <= first) {
		return nil
	}
	return []Finding{find(results.KindLadder, Warn, nil, weakerStep{name: l.Name, accepted: l.AcceptedStep, first: first})}
}

// restore says a thread whose scheduling could not be put back.
func restore(f *facts) []Finding {
	sch := f.rec.Scheduling
	if sch == nil || sch.Restore.OK || !sch.Restore.Done {
		return nil
	}
	return []Finding{find(results.KindRestore, Warn, nil, notRestored{start: sch.Start, failure: sch.Restore.Failure()})}
}

// dedupe keeps the first of identical warnings that differ only by run;
// a kind the terminal sums up keeps every run, which its line counts.
func dedupe(ws []results.Warning) []results.Warning {
	out := []results.Warning{}
	seen := map[string]bool{}
	summed := Words{}.Phrases()
	for _, w := range ws {
		if _, ok := summed[w.Kind]; ok && w.Value != nil {
			out = append(out, w)
			continue
		}
		if !seen[w.Text] {
			seen[w.Text] = true
			out = append(out, w)
		}
	}
	return out
}

// Unfinished judges the benchmarks of a run its writer did not finish
// (still running, or crashed), as results.Load settled it from its
// journal: their runs keep the findings they were recorded with, and what
// the benchmarks' statistics say is found anew. A finished or interrupted
// run keeps the findings it was written with.
func (w Words) Unfinished(run *results.Run) {
	if run.State != results.StateRunning && run.State != results.StateCrashed {
		return
	}
	for i := range run.Benchmarks {
		w.Benchmark(&run.Benchmarks[i])
	}
}
