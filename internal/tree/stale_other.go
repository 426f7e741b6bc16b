//go:build !linux

package tree

import "corepin.dev/corepin/fsroot"

// SweepStale finds nothing outside Linux.
func SweepStale(fsroot.Root, bool) []Stray { return nil }
