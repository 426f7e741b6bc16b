package judge

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// everyText is each wording of each kind, with parameters as a run gives
// them.
var everyText = []Params{
	said{"the machine's own words"},
	shared{verdict: SharedWarned, share: 0.05, othersS: 0.05, windowS: 1, cpus: 1, source: "cpuacct", maxOthers: 0.02},
	shared{verdict: SharedAllowed, share: 0.5, othersS: 0.5, windowS: 1, cpus: 1, source: "proc_stat, the work's part estimated from rusage", preemptors: "spin (42) 480.0 ms"},
	shared{verdict: SharedInvalid, share: 0.5, othersS: 0.5, windowS: 1, cpus: 1, source: "cpuacct"},
	coarse{source: "proc_stat", tickS: 0.01, resolutionS: 0.02, atS: 0.21},
	asleep{waitKnown: true, wantedS: 0.005, windowS: 1},
	asleep{wantedS: 0.004, windowS: 1},
	waited{own: true, share: 0.08},
	waited{share: 0.3},
	turns{busy: 4, usable: 1},
	covers{source: "sampled", coverage: 0.3},
	left{n: 1, cpuS: 0.07, mostS: 0.3},
	unvouched{missed: 13, expected: 25, check: true},
	unvouched{missed: 8, expected: 10, share: 0.8, priority: "fifo:1"},
	watcherCost{share: 0.05, most: 0.02},
	causes{{1.95, throttled{s: 1.95, cgroup: "/sys/fs/cgroup/cpu/limit"}}, {0.3, steal{s: 0.3}}, {0.2, othersTook{s: 0.2, names: "spin (42) 200.0 ms"}},
		{0.5, slowCore{factor: 1.5, probe: 0.55, freq: &frequencyRange{min: 1200, max: 2400, mean: 1800, source: "scaling_cur_freq"}}}},
	notAFigure(results.FigureProblem{Label: "time", Raw: "+Inf s", Noun: "a time", Why: "not a number"}),
	unfinishedRuns{completed: 2, planned: 6},
	invalidRuns{},
	spreadOf{cv: 0.09, most: SpreadWarn},
	slowFirst{longer: 50},
	slowFirst{longer: 49, slowedBy: "others took 500.0 ms of the target during it"},
	outlierRuns{runs: []int{7}},
	outlierRuns{runs: []int{0, 7}, slowed: []int{0, 7}, speeds: []float64{0.67, 0.5}},
	outlierRuns{runs: []int{0, 7}, slowed: []int{7}, speeds: []float64{0.5}},
	droppedRuns{n: 1, first: true, included: []int{0, 1}},
	droppedRuns{n: 2, shared: true},
	droppedRuns{n: 2, shared: true, first: true},
	varied{min: 1000, max: 2000},
	sampler{"t=0.1s: a gap of 0.3 s"},
	watcherError{"lost a thread"},
	offTarget{ratio: 0.9},
	weakerStep{name: "geekbench", accepted: 4, first: 2},
	weakerStep{name: "geekbench"},
	notRestored{start: evidence.StartFork, failure: "EPERM"},
	notRestored{start: evidence.StartThread, failure: "EPERM"},
	notRestored{start: evidence.StartLauncher, failure: "EPERM"},
	unscored{unreferenced: []string{"b"}},
	unscored{unreferenced: []string{"a", "b"}, invalid: []string{"c"}, stopped: true},
	unscored{},
	wentOffline{next: "run 4 of lbm", why: "CPU 3 is offline", waited: 1500 * time.Millisecond, limit: time.Minute},
	wentOffline{next: "run 5 of lbm", why: "CPU 3 is offline", stopped: true},
	wentOffline{next: "run 5 of lbm", why: "CPU 3 is offline", waited: time.Minute, limit: time.Minute, stopped: true},
	unversioned{Name: "gzip", Why: "exit status 1"},
	skip{Name: "zstd", Why: "zstd is not installed"},
	moved{bench: "fib", min: 1555, max: 2842, locked: 2842},
	sharedAgain{err: "the target CPU was shared: others took 50.0% …", n: 1},
	sharedKept{},
	sharedKept{stayed: MaxSharedReruns},
	sharedKept{limit: 2000},
	gated{claim: "slowed: it ran at 0.33 of its best run's speed (3.00× its time): …", n: 1},
	gateKept{reruns: MaxSpeedReruns},
	gateKept{limit: 2000},
}

// TestEveryText holds every text the judge makes, in corepin run's words
// and in those of a command with none of the flags they may advise, in a
// golden file: a change of wording shows there, whole.
func TestEveryText(t *testing.T) {
	var b strings.Builder
	for _, p := range everyText {
		with, without := p.text(runFlags), p.text(Flags{})
		fmt.Fprintf(&b, "%T\n\t%s\n", p, with)
		if without != with {
			fmt.Fprintf(&b, "\twithout the flags: %s\n", without)
		}
	}
	for _, kind := range []string{results.KindShared, results.KindOwnWait, results.KindWait, results.KindOwnThreads, results.KindCoverage,
		results.KindSpeed, results.KindSpeedGate, results.KindSharedRerun, results.KindWatcherCost, results.KindSpread} {
		with, without := testWords.Phrases()[kind], Words{}.Phrases()[kind]
		fmt.Fprintf(&b, "phrase %s (share %v)\n\t%s\n", kind, with.Share, with.Text)
		if without != with {
			fmt.Fprintf(&b, "\twithout the flags: %s\n", without.Text)
		}
	}
	golden(t, "words.golden", b.String())
}
