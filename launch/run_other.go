//go:build !linux

package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"corepin.dev/corepin/session"
)

// Config is a command to run and how to run it.
type Config struct {
	Request        session.Request
	Args           []string
	Self, Dir      string
	Env            []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Timeout, Grace time.Duration
	WatchPeriod    time.Duration
	ForwardSignals bool
	Launcher       bool
}

func signalNumber(string) int { return 0 }

// Run is unsupported outside Linux.
func Run(context.Context, Config) (*Report, error) {
	return nil, fmt.Errorf("launching a command: %w", errors.ErrUnsupported)
}
