//go:build !linux

package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"corepin.dev/corepin/session"
)

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
