package main

import "corepin.dev/corepin/results"

// writeReport writes report.html into the results folder.
func writeReport(dir string, run *results.Run) error { return nil }
