// Command machines boots Debian kernels under qemu in chosen CPU shapes
// (SMT, two NUMA nodes, offline CPUs, isolcpus, hot-unplug, arm64
// big.LITTLE) and runs a command inside them with the host's root file
// system shared read-only, so corepin's claims about the kernel and the
// machine's shape are checked on shapes this machine does not have.
//
//	go run ./test/machines shapes
//	go run ./test/machines run -shape smt8 -- lscpu -e
//	go run ./test/machines test -shape smt8            # the project's tests in a guest
//	go run ./test/machines matrix                      # every shape × every check
//
// Kernels, the initramfs and the device trees are cached under
// os.UserCacheDir()/corepin/machines. See README.md in this directory.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit statuses of the tool itself; "run" returns the guest command's own.
const (
	exitUsage = 2
	// exitMachine is returned when the guest did not run the command to the
	// end (no kernel, qemu failed, the guest hung or crashed).
	exitMachine = 3
)

// command is one entry of the tool's command table.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) int
}

var commands []command

func init() {
	commands = []command{
		{"shapes", "list the machine shapes and their kernels", cmdShapes},
		{"fetch", "download and unpack the kernels (all, or -kernel NAME)", cmdFetch},
		{"run", "boot a shape and run a command in it: run -shape NAME -- CMD ARGS…", cmdRun},
		{"test", "run the project's test binaries in a shape: test -shape NAME [PKG…]", cmdTest},
		{"check", "run the truth checks in a shape: check -shape NAME [CHECK…]", cmdCheck},
		{"matrix", "run the truth checks on every shape and print shape × check", cmdMatrix},
		{"guest", "(inside a guest) run checks and test binaries, write results.json", cmdGuest},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

func dispatch(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(os.Stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, args[1:])
		}
	}
	fmt.Fprintf(os.Stderr, "machines: unknown command %q\n", args[0])
	usage(os.Stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: go run ./test/machines COMMAND [flags]")
	fmt.Fprintln(w)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.summary)
	}
}

// newFlags returns a flag set whose errors are returned, not fatal.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("machines "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}

// parseFlags parses args and reports whether the caller should go on; code
// is the exit status when it should not.
func parseFlags(fs *flag.FlagSet, args []string) (ok bool, code int) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return false, 0
		}
		return false, exitUsage
	}
	return true, 0
}

func fail(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "machines: "+format+"\n", args...)
	return exitMachine
}
