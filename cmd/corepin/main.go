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
	"strings"

	"corepin.dev/corepin/experiment"
	"corepin.dev/corepin/internal/interrupt"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/runner"
)

// The main goroutine keeps the main thread to itself. The runtime never
// destroys the main thread (it parks it instead), so a goroutine that
// changed its thread and exits locked must never be running there; locking
// main here keeps every other goroutine off it. Locking changes no thread
// state, so it is safe in init.
func init() { runtime.LockOSThread() }

func main() {
	// The launcher is dispatched before anything else, so that starting a
	// command costs as little as possible.
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case launch.Arg:
			launch.Main()
		case experiment.SpinArg:
			experiment.SpinMain()
		}
	}
	os.Exit(runWithSignals(os.Args[1:]))
}

// runWithSignals runs the command line with a context that SIGINT,
// SIGTERM and SIGHUP cancel, so that every command stops cleanly, keeps
// its data and exits 128+N; SIGPIPE is ignored (see internal/interrupt).
func runWithSignals(args []string) int {
	c := catcher
	if c == nil {
		c = interrupt.Catch()
	}
	defer c.Stop()
	return run(interrupt.With(context.Background(), c), args)
}

// catcher catches signals from the start of main's package
// initialisation, so that one sent in corepin's first milliseconds is
// kept (and passed on to the command exec starts) instead of ending
// corepin before it has done anything. The launcher, the load processes
// and the workloads keep the default dispositions, and so does this
// package's test binary unless it acts as corepin.
var catcher = func() *interrupt.Catcher {
	if len(os.Args) > 1 && (os.Args[1] == launch.Arg || os.Args[1] == experiment.SpinArg || os.Args[1] == runner.WorkloadCommand) {
		return nil
	}
	if strings.HasSuffix(os.Args[0], ".test") && os.Getenv("COREPIN_AS_CLI") == "" {
		return nil
	}
	return interrupt.Catch()
}()

// interrupted is the error of a command that a signal ended after it wrote
// what it had: exit 128+N. It is nil when no signal came.
func interrupted(ctx context.Context, what string) error {
	code := interrupt.Code(ctx)
	if code == 0 {
		return nil
	}
	return &exitError{code: code, err: fmt.Errorf("interrupted; %s", what)}
}
