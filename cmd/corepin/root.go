package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"corepin.dev/corepin/cmd/corepin/internal/guard"
	"corepin.dev/corepin/cmd/corepin/internal/system"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/inputfile"
	"corepin.dev/corepin/internal/interrupt"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/internal/tree"
)

// Exit codes shared by every subcommand.
const (
	exitOK      = 0
	exitFailure = 1 // the job failed
	exitUsage   = 2 // the command line was wrong
)

// usageError marks an error in the command line itself.
type usageError = cli.UsageError

// exitError carries an exit code chosen by a subcommand (a child's status).
type exitError struct {
	code int
	err  error // nil when there is nothing to print
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

// runWith runs the command line in this process, as the tests do: signals
// are left alone.
func runWith(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	return runCommandLine(ctx, stdout, stderr, args, false, nil)
}

// runCommandLine runs the command line; with signals, SIGINT, SIGTERM and
// SIGHUP cancel its context (exec passes them on to its command). g, when
// not nil, is the guard handed to the commands that run work or tune the
// machine.
func runCommandLine(ctx context.Context, stdout, stderr io.Writer, args []string, signals bool, g *guard.Guard) int {
	root := newRootCmd(g)
	var c *interrupt.Catcher
	if signals {
		// One catcher for every command (internal/interrupt): the context
		// carries it, and is cancelled by SIGINT, SIGTERM and SIGHUP.
		if c = catcher; c == nil {
			c = interrupt.Catch()
			defer c.Stop()
		}
		ctx = interrupt.With(ctx, c)
	}
	root.Intercept = beforeEach(c, stderr, root.Intercept)
	err := root.Execute(ctx, os.Stdin, stdout, stderr, args)
	if err == nil {
		return exitOK
	}
	// An error may quote what it read (a suite file, a results folder, a
	// command's output): the message is shown safe.
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "corepin: %s\n", termsafe.Message(ee.err.Error()))
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "corepin: %s\n", termsafe.Message(err.Error()))
	// An input that is not a regular file (a FIFO named as a suite file
	// or found as a folder's run.json) is the command line's fault.
	var nr *inputfile.NotRegularError
	if errors.As(err, &nr) {
		return exitUsage
	}
	var ue usageError
	if errors.As(err, &ue) {
		var ce *cli.CommandError
		if errors.As(err, &ce) && ce.Cmd.Parent() != nil {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", ce.Cmd.Path())
		} else {
			fmt.Fprintln(stderr, "Run 'corepin help' for usage.")
		}
		return exitUsage
	}
	return exitFailure
}

// beforeEach is what every command line that parsed does before its
// command runs. But for the hidden completion command, it says what the
// machine's journal says that matters to whoever starts corepin (the
// machine still tuned by a process that no longer runs, or this corepin in
// a shield, off the shielded CPUs; see evidence.JournalState), except to
// system reset, the remedy, and removes the temporary files of a save
// that a killed tune left; and it finds what a killed corepin, whose guard
// was killed too, left running (tree.SweepStale), so that nothing runs
// unseen beside the next measurement: a command that runs work or changes
// the machine (endsStrays) ends it, one that only reads says so. Then it waits until c (nil for none)
// catches the signals, so that no command is ended by a signal's default
// action, but exec --replace: it becomes its command at once, and a
// signal's default action ends it as it would end the command (it waits
// where it writes; see replaceWith).
func beforeEach(c *interrupt.Catcher, stderr io.Writer, intercept func(*cli.Invocation) (bool, error)) func(*cli.Invocation) (bool, error) {
	return func(in *cli.Invocation) (bool, error) {
		if !in.Cmd.Hidden {
			if journal := "/" + system.DefaultJournal; in.Cmd.Path() != "corepin system reset" {
				system.SweepTemps(journal)
				for _, msg := range system.JournalWarnings(journal) {
					fmt.Fprintln(stderr, "corepin: warning:", msg)
				}
			}
			for _, s := range tree.SweepStale(fsroot.Host, endsStrays(in.Cmd.Path())) {
				fmt.Fprintln(stderr, "corepin:", s)
			}
		}
		if f := in.Cmd.Flag("replace"); c != nil && (in.Cmd.Name() != "exec" || f == nil || f.Value.String() != "true") {
			<-c.Ready()
		}
		return intercept(in)
	}
}

// endsStrays says whether the command at path may end what a corepin that
// was killed left running: the commands that run work or change the
// machine, which the strays would disturb. The others only read (topo,
// caps, version, report, compare, merge, telemetry, watch, system show,
// import, the remote commands), and a command that reads kills nothing.
func endsStrays(path string) bool {
	switch path {
	case "corepin run", "corepin exec", "corepin experiment qos", "corepin experiment partition", "corepin system tune", "corepin system reset":
		return true
	}
	return false
}

// newRootCmd is the command table.
// newRootCmd is corepin's command table; g, when not nil, is the guard of
// the commands that run work (run, exec) or tune the machine (system
// tune).
func newRootCmd(g *guard.Guard) *cli.Command {
	root := &cli.Command{
		Use:   "corepin",
		Short: "Run work on the CPU core you choose, and prove it",
		Long: `corepin makes the CPU core you choose actually reach the thread that does
the work, proves it with read-backs, keeps it there for the whole run, and
restores everything afterwards.

` + remoteUsage,
	}
	var rf remoteFlags
	rf.register(root)
	// Each command is built only when it runs or a help lists it.
	root.AddCommand(
		cli.Lazy("run", func() *cli.Command { return newRunCmd(g) }),
		cli.Lazy("compare", newCompareCmd),
		cli.Lazy("merge", newMergeCmd),
		cli.Lazy("report", newReportCmd),
		cli.Lazy("import", newImportCmd),
		cli.Lazy("spec", newSpecCmd),
		cli.Lazy("experiment", newExperimentCmd),
		cli.Lazy("topo", newTopoCmd),
		cli.Lazy("caps", newCapsCmd),
		cli.Lazy("telemetry", newTelemetryCmd),
		cli.Lazy("exec", func() *cli.Command { return newExecCmd(g) }),
		cli.Lazy("watch", newWatchCmd),
		cli.Lazy("system", func() *cli.Command { return newSystemCmd(g) }),
		cli.Lazy("version", newVersionCmd),
	)
	root.AddCommand(rf.aboutDeviceCmds()...)
	root.AddCommand(
		cli.CompletionCommand(root),
		cli.HelpCommand(root),
		cli.CompleteCommand(root),
	)
	return root
}
