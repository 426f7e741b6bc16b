package results_test

import (
	"fmt"
	"strings"

	"corepin.dev/corepin/results"
)

// Read a results folder (here one kept for the tests; corepin run writes
// one per run) and print each benchmark's figures: what it is judged by,
// its median with the 95% interval, and whether every counted run is valid.
func Example() {
	run, err := results.Load("testdata/merge/cpu0")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(run.State, run.Host.Name(), "target CPU", run.Target.ExactCPU, run.Target.Mode)
	for _, b := range run.Benchmarks {
		m, s := b.Figures()
		fmt.Printf("%s: %d runs, median %s, 95%% interval %s, valid %v\n", b.Name, s.N, m.Format(s.Median), s.Interval(m), b.Valid)
	}
	// Output:
	// finished vm target CPU 0 exact
	// fib: 6 runs, median 12.1 ms, 95% interval 11.9 ms – 13.3 ms, valid true
	// json: 6 runs, median 284.4 ms, 95% interval 277.9 ms – 296.0 ms, valid true
}

// Put two runs of the same suite side by side: per benchmark the change of
// its median, the Mann-Whitney p-value and a verdict, or why none is given
// (here the runs' targets differ, and the comparison says so).
func ExampleCompare() {
	before, err := results.Load("testdata/merge/cpu0")
	if err != nil {
		fmt.Println(err)
		return
	}
	after, err := results.Load("testdata/merge/cpu1/run.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := results.Compare(before, after)
	fmt.Println(strings.Join(c.TableHeader(), " | "))
	for _, d := range c.Deltas {
		fmt.Println(strings.Join(d.Row(), " | "))
	}
	for _, diff := range c.Differences {
		fmt.Println(diff)
	}
	// Output:
	// Benchmark | Old median | Old 95% CI | New median | New 95% CI | Change | p | Verdict
	// fib | 12.1 ms | 11.9 ms – 13.3 ms | 12.7 ms | 11.9 ms – 57.1 ms | - | - | withheld: the runs differ in target CPU
	// json | 284.4 ms | 277.9 ms – 296.0 ms | 590.2 ms | 386.1 ms – 910.6 ms | - | - | withheld: the runs differ in target CPU
	// target CPU: "0" in the old run, "1" in the new
}
