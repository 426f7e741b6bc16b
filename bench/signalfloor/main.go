// Command signalfloor is the earliest a Go program can catch SIGINT: its
// only package catches it from its initialisation, and then waits
// (corepin catches from its main on, see internal/interrupt, so that no
// package's initialisation changes a disposition). It exits 130 when the signal
// came, 0 after three seconds without one; a SIGINT that came before the
// catch ends it with the runtime's default action.
//
// bench/early-signal.sh sends it and corepin exec a SIGINT at fixed delays
// after their start: what signalfloor does not survive, no Go program does.
package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

var caught = func() chan os.Signal {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT)
	return ch
}()

func main() {
	select {
	case <-caught:
		os.Exit(130)
	case <-time.After(3 * time.Second):
	}
}
