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
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
