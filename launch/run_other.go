//go:build !linux

package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/oncpu"
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
	Signals        <-chan os.Signal
	Launcher       bool
	OnCPU          *oncpu.Tracer
	NoCgroup       bool
	Observe        bool
	Root           fsroot.Root
	Node           *int
}

func signalNumber(string) int { return 0 }

// Run is unsupported outside Linux.
func Run(context.Context, Config) (*Report, error) {
	return nil, fmt.Errorf("launching a command: %w", errors.ErrUnsupported)
}

// RunThread is unsupported outside Linux.
func RunThread(context.Context, ThreadConfig, func(*session.Session) error) (*Report, error) {
	return nil, fmt.Errorf("running on a session thread: %w", errors.ErrUnsupported)
}

// Pinned is a set of processes started on one CPU; outside Linux there is
// none.
type Pinned struct{}

// StartPinned is unsupported outside Linux.
func StartPinned(int, ...*exec.Cmd) (*Pinned, error) {
	return nil, fmt.Errorf("starting pinned processes: %w", errors.ErrUnsupported)
}

// Processes is empty outside Linux.
func (p *Pinned) Processes() []*os.Process { return nil }

// Stop does nothing outside Linux.
func (p *Pinned) Stop() {}

func ownElapsed() (time.Duration, error) {
	return 0, fmt.Errorf("reading taskstats: %w", errors.ErrUnsupported)
}
