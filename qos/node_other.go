//go:build !linux

package qos

import (
	"errors"
	"fmt"
)

// ErrNoNode is returned where the kernel has no QoS node.
var ErrNoNode = fmt.Errorf("no HarmonyOS QoS node: %w", errors.ErrUnsupported)

// NodeAvailable is false outside Linux.
func NodeAvailable() bool { return false }

// Get is unsupported outside Linux.
func Get() (Level, bool, error) { return 0, false, ErrNoNode }

// Set is unsupported outside Linux.
func Set(Level) error { return ErrNoNode }

// Leave is unsupported outside Linux.
func Leave() error { return ErrNoNode }
