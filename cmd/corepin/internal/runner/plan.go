package runner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/workloads"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/internal/suite"
)

// bench is a benchmark to run: a built-in workload or a suite command.
type bench struct {
	name     string
	workload *workloads.Workload
	command  *suite.Benchmark
	// runs and warmups are its counted runs and warm-ups: its own, else
	// the command line's, else the suite's, else the default.
	runs, warmups int
	expectS       float64 // how long its next run is expected to last
	// checker applies a suite command's checks and reads its metric;
	// version is its program's version line (versionErr why there is
	// none, where the benchmark asks for one).
	checker    *suite.Checker
	version    string
	versionErr error
}

// job is one run of one benchmark, and how many times it was run again.
type job struct {
	bench, index int
	warmup       bool
	attempt      judge.Attempt
}

// name names the run as the progress lines and run.json do: its index,
// warm-ups first ("run 4 of lbm", "warm-up 0 of fib").
func (j job) name(bench string) string {
	kind := "run"
	if j.warmup {
		kind = "warm-up"
	}
	return fmt.Sprintf("%s %d of %s", kind, j.index, bench)
}

// file names the run's files in the results folder: a re-run's own, so
// that the dropped run's evidence stays.
func (j job) file(bench string) string {
	if n := j.attempt.Reruns; n > 0 {
		return fmt.Sprintf("%s-%d-rerun%d", bench, j.index, n)
	}
	return fmt.Sprintf("%s-%d", bench, j.index)
}

// benchmarks are the benchmarks the run runs, with their runs and
// warm-ups: the suite's (or the built-ins), those --only names.
func benchmarks(cfg Config) ([]bench, error) {
	var out []bench
	want, missing := map[string]bool{}, map[string]bool{}
	for _, n := range cfg.Only {
		want[n], missing[n] = true, true
	}
	for _, b := range available(cfg) {
		if len(want) == 0 || want[b.name] {
			b.runs, b.warmups = runsOf(cfg, b.runs), warmupsOf(cfg)
			out = append(out, b)
			delete(missing, b.name)
		}
	}
	if len(missing) > 0 {
		err := &UnknownNamesError{}
		for n := range missing {
			err.Names = append(err.Names, n)
		}
		slices.Sort(err.Names)
		for _, b := range available(cfg) {
			err.Known = append(err.Known, b.name)
		}
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no benchmark to run")
	}
	return out, nil
}

// available are the suite's benchmarks, or the built-ins, each with its
// own runs where it has them.
func available(cfg Config) []bench {
	var out []bench
	if cfg.Suite == nil {
		for _, w := range workloads.All() {
			out = append(out, bench{name: w.Name, workload: &w})
		}
		return out
	}
	for i := range cfg.Suite.Benchmarks {
		b := &cfg.Suite.Benchmarks[i]
		out = append(out, bench{name: b.Name, command: b, runs: b.Runs})
	}
	return out
}

// checkTotal refuses a run whose runs and warm-ups add up to more than
// MaxTotalRuns.
func checkTotal(cfg Config, benches []bench) error {
	e := &TooManyRunsError{Benchmarks: len(benches), Warmups: warmupsOf(cfg)}
	for _, b := range benches {
		e.Total += b.runs + b.warmups
		e.Runs = max(e.Runs, b.runs)
	}
	if e.Total > MaxTotalRuns {
		return e
	}
	return nil
}

// runsOf is a benchmark's counted runs: its own, else the command line's,
// else the suite's, else the default.
func runsOf(cfg Config, own int) int {
	switch {
	case own > 0:
		return own
	case cfg.Runs > 0:
		return cfg.Runs
	case cfg.Suite != nil && cfg.Suite.Settings.Runs > 0:
		return cfg.Suite.Settings.Runs
	}
	return 6 // the fewest runs for a 95% confidence interval of the median
}

// warmupsOf is the warm-ups of every benchmark: the command line's, else
// the suite's, else one.
func warmupsOf(cfg Config) int {
	switch {
	case cfg.Warmup >= 0:
		return cfg.Warmup
	case cfg.Suite != nil && cfg.Suite.Settings.Warmup != nil:
		return *cfg.Suite.Settings.Warmup
	}
	return 1
}

// telemetryPeriod is the sampler's period: the command line's, else 1 s
// for suite files (SPEC-like runs of minutes), else 100 ms.
func telemetryPeriod(cfg Config) time.Duration {
	switch {
	case cfg.TelemetryPeriod > 0:
		return cfg.TelemetryPeriod
	case cfg.Suite != nil:
		return time.Second
	}
	return 100 * time.Millisecond
}

// size is the built-ins' size.
func size(cfg Config) workloads.Size {
	if cfg.Quick {
		return workloads.Quick
	}
	return workloads.Full
}

// jobs lists every run: warm-ups first, then the counted runs. Shuffled,
// the rounds are interleaved across benchmarks in random order, so that
// thermal drift spreads over all of them instead of favouring the first.
func jobs(benches []bench, shuffle bool) []job {
	var per [][]job
	for bi, b := range benches {
		var js []job
		for i := range b.warmups + b.runs {
			js = append(js, job{bench: bi, index: i, warmup: i < b.warmups})
		}
		per = append(per, js)
	}
	if !shuffle {
		return slices.Concat(per...)
	}
	var out []job
	for round := 0; ; round++ {
		var r []job
		for _, js := range per {
			if round < len(js) {
				r = append(r, js[round])
			}
		}
		if len(r) == 0 {
			return out
		}
		rand.Shuffle(len(r), func(i, k int) { r[i], r[k] = r[k], r[i] })
		out = append(out, r...)
	}
}
