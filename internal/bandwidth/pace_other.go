//go:build !linux

package bandwidth

import (
	"errors"
	"time"
)

// PaceInterval is how often a pacer wakes (see pace_linux.go).
const PaceInterval = 250 * time.Microsecond

// Pacer exists only on Linux.
type Pacer struct{}

// Pace is unavailable off Linux.
func (l *Limit) Pace(cpu int) (*Pacer, error) {
	return nil, errors.New("a pacer needs Linux")
}

// Stop does nothing.
func (p *Pacer) Stop() {}
