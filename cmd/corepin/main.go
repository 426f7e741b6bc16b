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
	"fmt"
	"os"
	"runtime"

	"corepin.dev/corepin/cmd/corepin/internal/guard"
	"corepin.dev/corepin/cmd/corepin/internal/runner"
	"corepin.dev/corepin/internal/interrupt"
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
	// command costs as little as possible, and they keep the signals'
	// default dispositions. corepin catches them from here on.
	dispatch(os.Args)
	catcher = interrupt.Catch()
	os.Exit(runWithSignals(os.Args[1:]))
}

// dispatch runs the helper verb args[1] names, if any, and exits with its
// status: launch's (the launcher, a competing process), the guard, and a
// built-in workload's child.
func dispatch(args []string) {
	launch.Dispatch(args, launch.Verb{Name: guard.Arg, Main: guard.Main})
	runner.Dispatch(args)
}

// runWithSignals runs the command line with a context that SIGINT,
// SIGTERM, SIGHUP and SIGQUIT cancel, so that every command stops
// cleanly, keeps its data and exits 128+N; SIGPIPE is ignored (see
// internal/interrupt). exec passes them on to the command instead.
//
// What a signal cannot reach (SIGKILL, the OOM killer, a crash) a guard
// process finishes: a command that makes a run's cgroups or tunes the
// machine starts it first (it is handed the guard), and the guard is
// dismissed here, at the normal end.
func runWithSignals(args []string) int {
	g := guard.New()
	code := runCommandLine(context.Background(), os.Stdout, os.Stderr, args, true, g)
	if err := g.Dismiss(); err != nil {
		fmt.Fprintf(os.Stderr, "corepin: warning: nothing would have cleaned up had corepin been killed: %v\n", err)
	}
	return code
}

// catcher holds the signals caught from main's start on (see
// internal/interrupt), so that one sent while corepin starts is kept, and
// passed on to the command exec starts, instead of ending corepin before
// it has done anything. Only main sets it: the test binary, standing in
// for corepin when its TestMain is asked to, catches in runCommandLine.
var catcher *interrupt.Catcher

// interrupted is the error of a command that a signal ended after it wrote
// what it had: exit 128+N. It is nil when no signal came.
func interrupted(ctx context.Context, what string) error {
	code := interrupt.Code(ctx)
	if code == 0 {
		return nil
	}
	return &exitError{code: code, err: fmt.Errorf("interrupted; %s", what)}
}
