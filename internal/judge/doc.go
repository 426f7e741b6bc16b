// Package judge turns a run's evidence into findings, and findings into
// words. It is the one place that decides what a run's evidence means —
// whether its target was shared, whether its watcher can vouch for it,
// whether it was slowed, whether it is run again, what its benchmark's
// statistics and the machine's condition say — and the one place that
// words it.
//
// A Finding is {kind, run, severity, value, parameters}: the kind is
// run.json's (results.Kind*), the severity what it does to the run
// (Invalid, Rerun, Warn, Note), the value the figure the terminal gives a
// range of, and the parameters what its text says. Each kind has one rule
// (rules.go, one table) and one wording (words.go): Words makes every
// text from a finding's parameters and the names of the command's flags,
// which the command hands it (Flags), so that no library names a flag a
// command may not have.
//
// The judge reads results and results/evidence and writes its findings
// into them as results.Warning values, with their texts: results itself
// judges nothing. A run is judged as it ends (Report, the runner's
// re-runs) and as it is settled (Settle: its benchmarks' statistics and
// its runs' records). A results folder read from disk keeps the findings
// it was written with: Benchmark.Summarize computes statistics and
// validity only and leaves the stored findings as they are, because a
// folder is a record of what the corepin that wrote it found and said,
// and a view never rewrites it. Only a run settled anew in memory (one
// read back from its journal after its writer died, an import) is judged
// again, by the command that settles it.
package judge
