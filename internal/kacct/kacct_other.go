//go:build !linux

package kacct

import (
	"errors"
	"fmt"
	"time"

	"corepin.dev/corepin/fsroot"
)

// Events are Linux's process events; elsewhere there are none.
type Events struct{}

// ListenEvents is unsupported outside Linux.
func ListenEvents() (*Events, error) {
	return nil, fmt.Errorf("listening to process events: %w", errors.ErrUnsupported)
}

// Follow does nothing outside Linux.
func (p *Events) Follow(int) error { return errors.ErrUnsupported }

// Span has no figure outside Linux.
func (p *Events) Span(int, time.Duration) (time.Duration, bool) { return 0, false }

// Close does nothing outside Linux.
func (p *Events) Close() {}

// Exits are Linux's exit statistics; elsewhere there are none.
type Exits struct{}

// ListenExits is unsupported outside Linux.
func ListenExits(fsroot.Root) (*Exits, error) {
	return nil, fmt.Errorf("registering for exit statistics: %w", errors.ErrUnsupported)
}

// Record has no record outside Linux.
func (e *Exits) Record(int) (Record, bool) { return Record{}, false }

// Close does nothing outside Linux.
func (e *Exits) Close() {}

// OwnElapsed is unsupported outside Linux.
func OwnElapsed() (time.Duration, error) {
	return 0, fmt.Errorf("reading taskstats: %w", errors.ErrUnsupported)
}
