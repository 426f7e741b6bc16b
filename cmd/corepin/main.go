// Command corepin puts a chosen CPU core under the thread that does the
// work, proves it with read-backs, keeps it there for the whole run and
// restores everything afterwards.
//
// Run "corepin help" for the subcommands.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"

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
// SIGTERM cancel, so that every command stops cleanly and keeps its data.
func runWithSignals(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args)
}
