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
// range of, and the parameters what its text says. Every rule is in one
// table (rules.go), judged at its level: as a run's report comes in
// (Report, for run, exec and imports alike; Exec), as a run of the suite
// ends (Words.Record) and is kept or run again (Reruns), as a benchmark is
// settled (Words.Settle, Words.Benchmark) and as a run of benchmarks ends
// (Words.End). Every text is made in one file (words.go) from a finding's
// parameters and the names of the command's flags, which the command hands
// it (Flags): no text names a flag the command does not have, and no
// library names one.
//
// The judge reads results and results/evidence and writes its findings
// into them as results.Warning values, with their texts and severities:
// results itself judges nothing. Benchmark.Summarize computes statistics,
// speed figures and validity only, and leaves a benchmark's warnings as
// they were found: a results folder read from disk (report of an old
// folder) keeps the findings of the corepin that wrote it, in its words,
// because a folder is the record of what was found then and a view never
// rewrites it; re-judging it in results would need the judge's rules
// there, and words for flags no library may name. A run settled anew in
// memory from its journal (a crashed run's) keeps the findings its runs
// were recorded with; what its benchmarks' statistics say is the judge's,
// which the command that settles it asks for.
package judge
