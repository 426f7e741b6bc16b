// The runtime's periodic re-check of GOMAXPROCS would wake a corepin thread
// every second during a measurement; corepin's CPUs are fixed by the
// affinity it sets, so the value found at start stands.
//
//go:debug updatemaxprocs=0

// Command corepin puts a chosen CPU core under the thread that does the
// work, proves it with read-backs, keeps it there for the whole run and
// restores everything afterwards.
//
// Run "corepin help" for the subcommands.
package main

import (
	"context"
	"os"
	"runtime"

	"corepin.dev/corepin/launch"
)

// The main goroutine keeps the main thread to itself. The runtime never
// destroys the main thread (it parks it instead), so a goroutine that
// changed its thread and exits locked must never be running there; locking
// main here keeps every other goroutine off it. Locking changes no thread
// state, so it is safe in init.
func init() { runtime.LockOSThread() }

func main() {
	// The helper processes (the launcher, a competing process, one
	// workload) are dispatched before anything else, so that starting a
	// command costs as little as possible.
	launch.Dispatch(os.Args)
	os.Exit(runWithSignals(os.Args[1:]))
}

// runWithSignals runs the command line with a context that Ctrl-C and
// SIGTERM cancel, so that every command stops cleanly and keeps its data
// (exec handles them itself: it forwards them to the command or becomes it).
func runWithSignals(args []string) int {
	return runCommandLine(context.Background(), os.Stdout, os.Stderr, args, true)
}
