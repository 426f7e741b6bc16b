package judge

import (
	"strings"
	"time"

	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/results"
)

// Ending is what a run of benchmarks is judged by as it ends, beyond what
// run.json holds: what the runner saw as the runs went.
type Ending struct {
	// Offline are what the target's going offline did to the run, as the
	// runs went (Offline's findings).
	Offline []Finding
	// Unversioned are the suite's programs that could not tell their
	// version: their signatures cannot be checked.
	Unversioned []Unversioned
	// Lost says what of the run's tune was undone under it, read before
	// the tune itself was undone (system.Tuned.LostWarning); "" when
	// nothing was.
	Lost string
}

// Unversioned is a benchmark whose program could not tell its version,
// and why.
type Unversioned struct{ Name, Why string }

// End judges a run of benchmarks as it ends, once its benchmarks are
// settled (Settle), and adds what it finds to the run's own warnings: a
// score that could have been and is not, the target gone offline,
// programs without a version, benchmarks skipped, the machine's condition
// at the start, a locked frequency that moved, a tune lost under the run.
func (w Words) End(run *results.Run, e Ending) {
	f := &facts{run: run, end: &e}
	run.Warnings = append(run.Warnings, w.Warnings(f.judge(onEnd))...)
}

// noScore says why a run that could have had a score has none: a suite
// whose benchmarks have no reference time is scored by nothing, and
// saying so on every run of it would be noise.
func noScore(f *facts) []Finding {
	run := f.run
	if run.Score != nil {
		return nil
	}
	p := unscored{stopped: run.StoppedEarly != ""}
	for _, b := range run.Benchmarks {
		switch {
		case b.ReferenceS <= 0:
			p.unreferenced = append(p.unreferenced, b.Name)
		case !b.Valid:
			p.invalid = append(p.invalid, b.Name)
		}
	}
	if len(p.unreferenced) == len(run.Benchmarks) {
		return nil // no reference time at all: no score was to be had
	}
	return []Finding{find(results.KindNoScore, Warn, nil, p)}
}

// offline passes on what the target's going offline did to the run.
func offline(f *facts) []Finding { return f.end.Offline }

// Offline is what the target's going offline did to the run before its
// run next ("run 4 of lbm"): why ("CPU 3 is offline (…)"), how long the
// run waited for it (up to limit), and whether it stopped early.
func Offline(next, why string, waited, limit time.Duration, stopped bool) Finding {
	return find(results.KindOffline, Warn, nil, wentOffline{next: next, why: why, waited: waited, limit: limit, stopped: stopped})
}

// versions says which programs could not tell their version.
func versions(f *facts) []Finding {
	var out []Finding
	for _, u := range f.end.Unversioned {
		out = append(out, find(results.KindVersion, Warn, nil, unversioned(u)))
	}
	return out
}

// skipped says which benchmarks the suite skipped, and why.
func skipped(f *facts) []Finding {
	var out []Finding
	for _, sk := range f.run.Skipped {
		out = append(out, find(results.KindSkipped, Note, nil, skip(sk)))
	}
	return out
}

// machine says the important checks of the machine's condition that
// failed at the start, and the journal's warnings, as the machine's
// facts word them.
func machine(f *facts) []Finding {
	if f.start() == nil {
		return nil
	}
	var out []Finding
	for _, s := range f.start().Warnings() {
		out = append(out, find(results.KindMachine, Warn, nil, said{s}))
	}
	return out
}

// frequencyMoved says of each benchmark whose run saw the target's
// frequency away from the one it was locked at that it moved: a thermal
// limit or a vendor's daemon undid the lock.
func frequencyMoved(f *facts) []Finding {
	locked := f.start().LockedKHz(f.run.Target.ExactCPU)
	if locked == 0 {
		return nil
	}
	var out []Finding
	for _, b := range f.run.Benchmarks {
		for _, r := range b.Runs {
			if p, ok := movedFrom(locked, r.Telemetry); ok {
				p.bench = b.Name
				out = append(out, find(results.KindFrequency, Warn, nil, p))
				break
			}
		}
	}
	return out
}

// movedFrom says whether a run's telemetry saw the target away from the
// frequency it was locked at: beyond 2%, the granularity of frequency
// read-outs.
func movedFrom(lockedKHz int64, t results.TelemetryStats) (moved, bool) {
	if t.FreqMinMHz == nil || t.FreqMaxMHz == nil {
		return moved{}, false
	}
	want := float64(lockedKHz) / 1000
	p := moved{min: *t.FreqMinMHz, max: *t.FreqMaxMHz, locked: want}
	return p, p.min < want*0.98 || p.max > want*1.02
}

// tuneLost says what of the run's tune was undone under it.
func tuneLost(f *facts) []Finding {
	if f.end.Lost == "" {
		return nil
	}
	return []Finding{find(results.KindTuneLost, Warn, nil, said{f.end.Lost})}
}

// names lists names, made safe to show: a suite's names are anyone's.
func names(ns []string) string { return termsafe.Text(strings.Join(ns, ", ")) }
