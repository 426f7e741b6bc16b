//go:build !linux

package qos

// NodeAvailable is false outside Linux.
func NodeAvailable() bool { return false }

// Get is unsupported outside Linux.
func Get() (Level, bool, error) { return 0, false, ErrNoNode }

// Set is unsupported outside Linux.
func Set(Level) error { return ErrNoNode }

// Leave is unsupported outside Linux.
func Leave() error { return ErrNoNode }
