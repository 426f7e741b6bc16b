//go:build !linux

package topology

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/cpuset"
)

// processMask is unsupported outside Linux.
func processMask() (cpuset.Set, error) {
	return cpuset.Set{}, fmt.Errorf("reading the allowed CPUs: %w", errors.ErrUnsupported)
}
