package results

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Warning is something a reader of a benchmark's results must know: about
// one run (Run is its index) or about the benchmark as a whole (Run is
// NoRun). Kind says what it is about, so that the terminal can say one
// kind once for the whole run; Severity what it did to the run (the
// judge's: "invalid", "re-run", "warn" or "note"); Value is the figure it
// is about (a share, a count), for the range that line gives. Warnings
// written by an older corepin have no kind: they are grouped and compared
// by Text.
type Warning struct {
	Run      int      `json:"run"`
	Kind     string   `json:"kind"`
	Severity string   `json:"severity,omitempty"`
	Text     string   `json:"text"`
	Value    *float64 `json:"value,omitempty"`
}

// NoRun is the Run of a warning about the benchmark as a whole.
const NoRun = -1

// The kinds of warning that the terminal groups across benchmarks.
const (
	KindShared      = "shared"       // others took the target's time
	KindOwnWait     = "own-wait"     // the work's threads waited behind each other
	KindWait        = "wait"         // the work waited, cause unknown
	KindOwnThreads  = "own-threads"  // more busy threads than target CPUs
	KindCoverage    = "coverage"     // the residency describes too little
	KindSpread      = "spread"       // coefficient of variation above the threshold
	KindLadder      = "ladder"       // a weaker ladder step than the first tried
	KindRealtime    = "realtime"     // a realtime step the kernel throttles
	KindTooShort    = "too-short"    // too little work to judge
	KindLeftCgroup  = "left-cgroup"  // a process left the run's cgroup
	KindUnfinished  = "unfinished"   // runs that did not complete
	KindFirstRun    = "first-run"    // a slow first run
	KindOutliers    = "outliers"     // runs far from the median
	KindWatcher     = "watcher"      // the watcher's own troubles
	KindWatcherCost = "watcher-cost" // the watcher's own CPU time, off the target
	KindResidency   = "residency"    // the work was off the target
	KindRestore     = "restore"      // a thread that could not be put back
	KindTelemetry   = "telemetry"    // the sampler's notes
	KindFrequency   = "frequency"    // the target's frequency varied
	KindInvalidRuns = "invalid-runs" // output checks failed
	KindSpeed       = "speed"        // a run was slowed, by what was measured during it
	KindSpeedGate   = "speed-gate"   // runs dropped by --speed-gate
	KindSharedRerun = "shared-rerun" // runs dropped because their target was shared
	KindNotATime    = "not-a-time"   // a run's time is not one (non-finite, not positive, absurd)
	// KindKernelThreads: the target's own per-CPU kernel threads took a
	// share of it, which is said and not judged as sharing.
	KindKernelThreads = "kernel-threads"
)

// The kinds of a run's own warnings (Run.Warnings), about the run of
// benchmarks as a whole.
const (
	KindState         = "state"          // the run did not finish
	KindNoScore       = "no-score"       // a run that could have had a score has none
	KindOffline       = "offline"        // the target went offline
	KindVersion       = "version"        // a program could not tell its version
	KindSkipped       = "skipped"        // a benchmark whose program is not installed
	KindMachine       = "machine"        // the machine's condition for measuring
	KindTuneLost      = "tune-lost"      // the run's tune was undone under it
	KindKeptElsewhere = "kept-elsewhere" // the run's own folder could not be written
	KindGuard         = "guard"          // what the guard of a killed corepin ended
	KindImported      = "imported"       // corepin did not watch the run
)

// Phrases say a kind of warning once for a whole run, by kind: the
// judge's wording of each kind the terminal groups.
type Phrases map[string]Phrase

// Phrase says one kind of warning for a whole run: Text has a %s for the
// range of the warnings' values, which are shares (printed as
// percentages) where Share is set, else counts.
type Phrase struct {
	Text  string
	Share bool
}

// String is the warning as summary.csv writes it: "run 3: text", or the
// text alone.
func (w Warning) String() string {
	if w.Run == NoRun {
		return w.Text
	}
	return "run " + strconv.Itoa(w.Run) + ": " + w.Text
}

// MarshalJSON writes a warning of a kind as an object, and one without a
// kind (read from an older run.json) as the string it was.
func (w Warning) MarshalJSON() ([]byte, error) {
	if w.Kind == "" {
		return json.Marshal(w.String())
	}
	type plain Warning
	return json.Marshal(plain(w))
}

// UnmarshalJSON reads either form.
func (w *Warning) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		return w.UnmarshalText([]byte(s))
	}
	type plain Warning
	p := plain{Run: NoRun}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*w = Warning(p)
	return nil
}

// UnmarshalText reads a warning as older run.json files hold it; the
// "run N: " prefix gives the run.
func (w *Warning) UnmarshalText(b []byte) error {
	*w = Warning{Run: NoRun, Text: string(b)}
	rest, ok := strings.CutPrefix(string(b), "run ")
	if !ok {
		return nil
	}
	n, text, ok := strings.Cut(rest, ": ")
	if run, err := strconv.Atoi(n); ok && err == nil && run >= 0 {
		*w = Warning{Run: run, Text: text}
	}
	return nil
}

// WarningTexts are the warnings as they are shown, run included.
func WarningTexts(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

// SummaryWarnings are the run's warnings as the terminal shows them: one
// line per kind that say has a phrase for, naming the benchmarks, giving
// the range of the figures and counting the runs ("fib, json: the work's
// own threads waited 3–9% of their time … in 11 of 12 runs"); warnings of
// other kinds once per text, as GroupedWarnings gives them. run.json and
// the page keep every warning.
func (r *Run) SummaryWarnings(say Phrases) []string {
	type group struct {
		names  []string
		lo, hi float64
		runs   map[string]bool
		total  int
	}
	groups := map[string]*group{}
	var order []string
	var rest []Warning
	for _, b := range r.Benchmarks {
		for _, w := range b.Warnings {
			if _, ok := say[w.Kind]; !ok || w.Value == nil {
				rest = append(rest, w)
				continue
			}
			g := groups[w.Kind]
			if g == nil {
				g = &group{lo: *w.Value, hi: *w.Value, runs: map[string]bool{}}
				groups[w.Kind] = g
				order = append(order, w.Kind)
			}
			if !slices.Contains(g.names, b.Name) {
				g.names = append(g.names, b.Name)
				g.total += b.CompletedRuns
			}
			g.lo, g.hi = min(g.lo, *w.Value), max(g.hi, *w.Value)
			if w.Run != NoRun {
				g.runs[b.Name+"/"+strconv.Itoa(w.Run)] = true
			}
		}
	}
	rest, variation := splitVariation(r, rest)
	// Slowed runs say why the times varied: where both are said,
	// in the spread's line, or without a spread in the slowed runs'.
	_, spread := groups[KindSpread]
	var out []string
	for _, kind := range order {
		if kind == KindSpeed && spread {
			continue
		}
		g, sum := groups[kind], say[kind]
		line := r.benchmarkNames(g.names) + ": " + fmt.Sprintf(sum.Text, valueRange(g.lo, g.hi, sum.Share))
		if len(g.runs) > 0 {
			line += fmt.Sprintf(" in %d of %d runs", len(g.runs), g.total)
		}
		if kind == KindSpeed && variation != "" {
			// No spread to say it in: the witness's line says that the
			// times varied, as its cause is there.
			line += "; the run times varied: " + variation
			variation = ""
		}
		if kind == KindSpread {
			var also []string
			if sp, ok := groups[KindSpeed]; ok {
				// "in 39 of all 42 runs": the count is over the benchmarks
				// named, not of each of them.
				of := "all " + strconv.Itoa(sp.total) + " runs"
				if names := r.benchmarkNames(sp.names); names != "every benchmark" {
					of = fmt.Sprintf("the %d runs of %s", sp.total, names)
				}
				also = append(also, fmt.Sprintf("%d of %s were slowed, at %s of their best run's speed (run.json says by what)",
					len(sp.runs), of, valueRange(sp.lo, sp.hi, true)))
			}
			if variation != "" {
				also = append(also, variation)
				variation = ""
			}
			if len(also) > 0 {
				line += "; " + strings.Join(also, "; ")
			}
		}
		out = append(out, line)
	}
	if variation != "" {
		out = append(out, "the run times varied: "+variation+"; the page has each run")
	}
	out = append(out, r.groupByText(rest)...)
	return append(out, WarningTexts(r.Warnings)...)
}

// valueRange prints lo–hi as percentages or counts, one figure when they
// agree at that precision.
func valueRange(lo, hi float64, share bool) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	unit := ""
	if share {
		lo, hi, unit = 100*lo, 100*hi, "%"
		if hi < 10 {
			f = func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
		}
	}
	if f(lo) == f(hi) {
		return f(lo) + unit
	}
	return f(lo) + "–" + f(hi) + unit
}

// benchmarkNames lists names, or says "every benchmark" when they are all
// of a run of several.
func (r *Run) benchmarkNames(names []string) string {
	if len(names) == len(r.Benchmarks) && len(r.Benchmarks) > 1 {
		return "every benchmark"
	}
	return strings.Join(names, ", ")
}

// splitVariation takes the outlier and slow-first-run warnings out of ws:
// they are the same fact as a spread, the times varied, and the terminal
// says them in the spread's line (or one line of their own), naming the
// benchmarks: "outlier runs in fib, json; a slow first run in graph".
func splitVariation(r *Run, ws []Warning) (rest []Warning, variation string) {
	who := map[string][]string{}
	for _, b := range r.Benchmarks {
		for _, w := range b.Warnings {
			if (w.Kind == KindOutliers || w.Kind == KindFirstRun) && !slices.Contains(who[w.Kind], b.Name) {
				who[w.Kind] = append(who[w.Kind], b.Name)
			}
		}
	}
	for _, w := range ws {
		if w.Kind != KindOutliers && w.Kind != KindFirstRun {
			rest = append(rest, w)
		}
	}
	var parts []string
	if names := who[KindOutliers]; len(names) > 0 {
		parts = append(parts, "outlier runs in "+strings.Join(names, ", "))
	}
	if names := who[KindFirstRun]; len(names) > 0 {
		parts = append(parts, "a slow first run in "+strings.Join(names, ", "))
	}
	return rest, strings.Join(parts, "; ")
}
