//go:build !linux

package cgroupfs

import (
	"errors"
	"fmt"
)

// Make is unsupported outside Linux, which has no cgroups.
func Make(Parent, string, Limits) (*Group, error) {
	return nil, fmt.Errorf("making a cgroup: %w", errors.ErrUnsupported)
}

// Grow is unsupported outside Linux.
func (g *Group) Grow(string, string, Limits) error {
	return fmt.Errorf("making a cgroup: %w", errors.ErrUnsupported)
}

// FD is unsupported outside Linux.
func (g *Group) FD() (int, error) {
	return -1, fmt.Errorf("opening a cgroup: %w", errors.ErrUnsupported)
}
